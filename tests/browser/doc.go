// Package browser is the course's real-browser test: it starts JupyterLab on loopback from the
// course environment (.venv), drives Debian's headless Chromium (/usr/bin/chromium) with chromedp,
// and checks what a learner sees: the notebook opens with the course kernel, "Run All" completes
// with no error output, charts are rendered, a recall check hides its answer until clicked and
// counts "n of m", and the race's batch-size slider re-runs the race.
//
// The tests are behind the build tag "browser", so `go test ./...` stays fast:
//
//	make test-browser                  # what `make test` and CI run
//	go test -tags browser -v ./tests/browser/   # the same, by hand
//
// Screenshots of every check land in tests/artifacts/browser/ (git-ignored).
package browser
