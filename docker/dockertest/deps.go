// Package dockertest holds the tests of the classroom files in docker/: the Dockerfile, the compose file
// and the JupyterHub configurations, read with the parsers Docker itself uses (moby/buildkit's Dockerfile
// parser, compose-spec's compose-go loader). It is its own module so that their dependencies stay out of
// the course's go.mod (they need newer golang.org/x modules than the pinned gopls builds with).
//
// Run: cd docker/dockertest && go test ./...   (make test-classroom runs it)
package dockertest
