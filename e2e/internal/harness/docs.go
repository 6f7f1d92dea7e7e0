package harness

import (
	"fmt"
	"os"
	"strings"
)

// DocCommand runs, with the real kubectl against the API server, the command that docs/<doc> shows
// as template (which must appear there verbatim): args is that same command with the docs'
// placeholder names replaced by the cluster's. It returns kubectl's output.
func (e *Env) DocCommand(doc, template string, args ...string) (string, error) {
	if err := e.docShows(doc, template); err != nil {
		return "", err
	}
	out, err := e.Kubectl(nil, args...)
	if err != nil {
		return out, fmt.Errorf("docs/%s: %s (run as kubectl %s): %w", doc, template, strings.Join(args, " "), err)
	}
	return out, nil
}

// DocHelm is DocCommand for a helm command of docs/<doc>.
func (e *Env) DocHelm(doc, template string, args ...string) (string, error) {
	if err := e.docShows(doc, template); err != nil {
		return "", err
	}
	out, err := e.Helm(args...)
	if err != nil {
		return out, fmt.Errorf("docs/%s: %s: %w", doc, template, err)
	}
	return out, nil
}

// docShows fails when docs/<doc> no longer shows template: the test running it must change with the docs.
func (e *Env) docShows(doc, template string) error {
	text, err := os.ReadFile(e.Path("docs", doc))
	if err != nil {
		return err
	}
	if !strings.Contains(string(text), template) {
		return fmt.Errorf("docs/%s no longer shows %q: update the test with the docs", doc, template)
	}
	return nil
}
