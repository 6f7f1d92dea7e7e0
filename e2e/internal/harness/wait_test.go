package harness

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestEventuallyReturnsOnceTheCheckPasses(t *testing.T) {
	calls := 0
	err := Eventually(context.Background(), time.Millisecond, time.Minute, func(context.Context) error {
		calls++
		if calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("Eventually = %v after %d calls, want nil after 3", err, calls)
	}
}

func TestEventuallyGivesUpWithTheLastAnswer(t *testing.T) {
	calls := 0
	err := Eventually(context.Background(), time.Millisecond, 20*time.Millisecond, func(context.Context) error {
		calls++
		return errors.New("pod p has no node")
	})
	if err == nil || !strings.Contains(err.Error(), "not within 20ms: pod p has no node") {
		t.Fatalf("Eventually = %v, want the check's last answer", err)
	}
	if calls < 1 {
		t.Fatalf("check never called")
	}
}

func TestEventuallyStopsAtAPermanentAnswer(t *testing.T) {
	exited := errors.New("the extender exited")
	calls := 0
	err := Eventually(context.Background(), time.Millisecond, time.Minute, func(context.Context) error {
		calls++
		return Permanent(exited)
	})
	if !errors.Is(err, exited) || calls != 1 {
		t.Fatalf("Eventually = %v after %d calls, want %v after 1", err, calls, exited)
	}
}
