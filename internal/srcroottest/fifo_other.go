//go:build !unix

package srcroottest

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }
