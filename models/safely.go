package models

import (
	"fmt"
	"runtime/debug"
)

// PanicError is a panic caught in a goroutine, kept as an error with the stack it happened on.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Safely runs fn and returns a panic in it as a *PanicError. Every goroutine the store or the
// server starts runs its work through it: a panic outside a request's own goroutine would end
// the process, which echo's recovery cannot catch.
func Safely(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return fn()
}
