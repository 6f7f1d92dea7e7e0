//go:build e2e

// Package uninstall removes Tandem as docs/operations.md and docs/install.md say, and checks what is
// left. It is a test binary of its own because it ends what every scenario relies on: e2e/run runs it
// after e2e/scenarios, on the same control plane. Each test installs Tandem first when it is not
// installed (harness.Env.Install), so it runs alone as well as after the scenarios.
package uninstall

import (
	"fmt"
	"os"
	"testing"

	"tandem.dev/e2e/internal/harness"
)

var (
	env     *harness.Env
	clients *harness.Clients
)

func TestMain(m *testing.M) {
	var err error
	if env, err = harness.LoadEnv(); err == nil {
		clients, err = env.Connect()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: set-up failed: %v\n", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// installed installs Tandem the way this run installs it (E2E_INSTALL), unless it is installed already.
func installed(t *testing.T) {
	t.Helper()
	if _, err := env.Install(); err != nil {
		t.Fatalf("installing Tandem before removing it: %v", err)
	}
}

// docCommand runs a kubectl command of docs/<doc> (harness.Env.DocCommand).
func docCommand(t *testing.T, doc, template string, args ...string) {
	t.Helper()
	if out, err := env.DocCommand(doc, template, args...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// docHelm runs a helm command of docs/<doc> (harness.Env.DocHelm).
func docHelm(t *testing.T, doc, template string, args ...string) {
	t.Helper()
	if out, err := env.DocHelm(doc, template, args...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
