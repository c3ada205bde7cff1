package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gpu-course/whygpu/internal/notebook"
	"github.com/gpu-course/whygpu/lessons/all"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
)

func check(args []string) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	strip := fs.Bool("strip", false, "first clear the outputs and execution counts of the notebooks (rewrites them)")
	quiet := fs.Bool("q", false, "print problems and the summary only")
	words := fs.Bool("words", false, "also print each notebook's main-path Markdown words (the budget of lessons/AUTHORING.md: ≤ 1,300 a lesson, ≤ 12,000 for 01–11)")
	giveIDs := fs.Bool("ids", false, "first give every cell without a (unique, valid) id a fresh one (rewrites the notebooks that lack some)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: whygpu check [-strip] [-ids] [-q] [notebook.ipynb | dir ...]

Lints the course's notebooks (default: every notebooks/*.ipynb of the checkout) against the
conventions of lessons/AUTHORING.md and exits non-zero when any problem is found. Problems name
the notebook and the cell (numbered from 1, top to bottom, Markdown cells included).`)
		fs.PrintDefaults()
	}
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	root := experiments.Root()
	cfg, err := notebook.LoadConfig(root)
	if err != nil {
		return fmt.Errorf("check: reading go.mod: %w", err)
	}
	for _, p := range all.Problems() {
		if p.Formula != "" {
			cfg.Formulas = append(cfg.Formulas, notebook.Formula{Lesson: p.Lesson(), Key: p.Key, Formula: p.Formula})
		}
	}
	paths, err := notebookPaths(root, fs.Args())
	if err != nil {
		return err
	}
	problems := 0
	bad := 0
	for _, p := range paths {
		nb, err := notebook.Read(p)
		if err != nil {
			fmt.Println(err)
			problems++
			bad++
			continue
		}
		nb.Path = relPath(p)
		stripped := *strip && nb.Strip()
		ided := 0
		if *giveIDs {
			ided = nb.GiveIDs()
		}
		if stripped || ided > 0 {
			if err := nb.Write(p); err != nil {
				return err
			}
			if stripped {
				fmt.Printf("%s: outputs stripped\n", nb.Path)
			}
			if ided > 0 {
				fmt.Printf("%s: %d cell(s) given an id\n", nb.Path, ided)
			}
		}
		if *words {
			fmt.Printf("%s: %d main-path words\n", nb.Path, notebook.MainPathWords(nb))
		}
		ps := notebook.Lint(nb, cfg)
		for _, pr := range ps {
			fmt.Println(pr)
		}
		if len(ps) > 0 {
			bad++
			problems += len(ps)
		} else if !*quiet {
			fmt.Printf("%s: ok\n", nb.Path)
		}
	}
	if problems > 0 {
		return fmt.Errorf("check: %d problem(s) in %d of %d notebook(s) (conventions: lessons/AUTHORING.md)", problems, bad, len(paths))
	}
	fmt.Printf("check: %d notebook(s) ok\n", len(paths))
	return nil
}

// parseFlags parses a subcommand's flags; -h prints the usage and is not an error.
func parseFlags(fs *flag.FlagSet, args []string) (help bool, err error) {
	err = fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return true, nil
	}
	return false, err
}

// notebookPaths expands arguments (files or directories) into .ipynb paths; no arguments means
// <root>/notebooks. A name without a directory that is not a file is looked up in notebooks/
// ("01-race" or "01-race.ipynb").
func notebookPaths(root string, args []string) ([]string, error) {
	if len(args) == 0 {
		args = []string{filepath.Join(root, "notebooks")}
	}
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil && !strings.ContainsRune(a, os.PathSeparator) {
			alt := filepath.Join(root, "notebooks", strings.TrimSuffix(a, ".ipynb")+".ipynb")
			if st2, err2 := os.Stat(alt); err2 == nil {
				a, st, err = alt, st2, nil
			}
		}
		if err != nil {
			return nil, fmt.Errorf("no notebook %s", a)
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		m, _ := filepath.Glob(filepath.Join(a, "*.ipynb"))
		sort.Strings(m)
		if len(m) == 0 {
			return nil, fmt.Errorf("no notebooks in %s", a)
		}
		out = append(out, m...)
	}
	return out, nil
}

// relPath shows p relative to the working directory when it is below it.
func relPath(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.Rel(wd, abs); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}
