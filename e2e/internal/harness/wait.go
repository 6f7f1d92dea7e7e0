package harness

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Eventually calls check every interval, the first time at once, until it returns nil, with
// wait.PollUntilContextTimeout. It gives up when timeout has passed or ctx ends, with an error that
// carries check's last answer (what was still not so), and at once when check returns an error made
// by Permanent (a process that exited will not become ready).
func Eventually(ctx context.Context, interval, timeout time.Duration, check func(context.Context) error) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(ctx context.Context) (bool, error) {
		last = check(ctx)
		var p *permanentError
		if errors.As(last, &p) {
			return false, p.err
		}
		return last == nil, nil
	})
	if err == nil || !wait.Interrupted(err) {
		return err
	}
	if last == nil {
		return fmt.Errorf("not within %s: %w", timeout, err)
	}
	return fmt.Errorf("not within %s: %w", timeout, last)
}

// Permanent marks err as an answer no later poll can change: Eventually returns it at once.
func Permanent(err error) error { return &permanentError{err} }

type permanentError struct{ err error }

func (p *permanentError) Error() string { return p.err.Error() }
func (p *permanentError) Unwrap() error { return p.err }

// WaitOK waits until url answers 200 to client while p runs (p exiting ends the wait at once).
func WaitOK(ctx context.Context, p *Proc, client *http.Client, url string, timeout time.Duration) error {
	err := Eventually(ctx, 200*time.Millisecond, timeout, func(context.Context) error {
		if !p.Running() {
			return Permanent(fmt.Errorf("%s exited", p.Name))
		}
		resp, err := client.Get(url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s not ready at %s: %w; see %s", p.Name, url, err, p.Log)
	}
	return nil
}
