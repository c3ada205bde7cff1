package controls

import (
	"fmt"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
)

// Control is one input: a drop-down of Options, or (no Options) a whole number in Min…Max. Value
// is the starting value, as text.
type Control struct {
	Name, Label string
	Options     []string
	Min, Max    int
	Value       string
	// Preset marks a drop-down whose choice sets the other controls (the view returns them in
	// View.Set); changing any other control turns it to its last option (the "custom" one).
	Preset bool
}

// Check says why v is not a value of c (nil when it is).
func (c Control) Check(v string) error {
	if len(c.Options) > 0 {
		if !slices.Contains(c.Options, v) {
			return fmt.Errorf("%s: %q is not one of %q", c.Label, v, c.Options)
		}
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < c.Min || n > c.Max {
		return fmt.Errorf("%s: %q is not a whole number in %d…%d", c.Label, v, c.Min, c.Max)
	}
	return nil
}

// Values are a form's values by control name.
type Values map[string]string

// Int is the whole number of control name (0 if it is not one).
func (v Values) Int(name string) int {
	n, _ := strconv.Atoi(v[name])
	return n
}

// Starting are the controls' starting values.
func Starting(cs []Control) Values {
	v := Values{}
	for _, c := range cs {
		v[c.Name] = c.Value
	}
	return v
}

// Check says why vals are not a complete, valid set of values for cs.
func Check(cs []Control, vals Values) error {
	for _, c := range cs {
		v, ok := vals[c.Name]
		if !ok {
			return fmt.Errorf("no value for %s", c.Label)
		}
		if err := c.Check(v); err != nil {
			return err
		}
	}
	return nil
}

// View is what a form shows for one set of values: a chart (nil: none), a caption line, the
// formula behind it in a fold (FoldSummary names the fold), and an error line for values that
// are refused (the form stays live).
type View struct {
	Plot              *plot.Plot
	Caption           string
	FoldSummary, Fold string
	Err               error
	// Set are values the form should switch its controls to (a preset's), nil for none.
	Set Values
}
