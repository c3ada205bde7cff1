// Package predict keeps a learner's prediction of a number, made before the cell that measures it,
// and compares the two once the measurement exists.
//
// A prediction cell calls Keep with the number the learner typed into it (0 means "no prediction
// yet"); each GoNB cell is a new process, so the prediction is kept on disk next to the kept results
// (results.CacheDir) and survives a page reload or a kernel restart. The measuring cell calls
// Compare with what it measured. Nothing here waits for input: headless runs and exported HTML show
// the measurement with a note that no prediction was made. Package display renders both.
package predict
