package protocol

import "github.com/google/uuid"

// ThreadID identifies one agent conversation (a UUIDv7 string).
type ThreadID string

// NewThreadID returns a fresh, time-ordered thread id.
func NewThreadID() ThreadID {
	id, err := uuid.NewV7()
	if err != nil {
		return ThreadID(uuid.NewString())
	}
	return ThreadID(id.String())
}

// String returns the id as a plain string.
func (t ThreadID) String() string { return string(t) }

// Short returns the last 8 characters, for compact display (the leading
// characters of a UUIDv7 are a timestamp shared by ids made together).
func (t ThreadID) Short() string {
	if len(t) > 8 {
		return string(t[len(t)-8:])
	}
	return string(t)
}
