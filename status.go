package venue

// JobStatus is the state of a job. The values are uppercase; clients poll
// until they see a terminal one, so the spelling is part of the contract.
type JobStatus string

// Job statuses of the spec.
const (
	StatusPending       JobStatus = "PENDING"        // created, waiting to execute
	StatusStarted       JobStatus = "STARTED"        // executing
	StatusComplete      JobStatus = "COMPLETE"       // finished with output
	StatusFailed        JobStatus = "FAILED"         // finished with an error
	StatusCancelled     JobStatus = "CANCELLED"      // cancelled by a client or the venue
	StatusRejected      JobStatus = "REJECTED"       // refused before execution
	StatusPaused        JobStatus = "PAUSED"         // suspended, awaiting resume
	StatusInputRequired JobStatus = "INPUT_REQUIRED" // waiting for the client's reply
	StatusAuthRequired  JobStatus = "AUTH_REQUIRED"  // waiting for authorisation
)

// Terminal reports whether a job in this status can never change again.
func (s JobStatus) Terminal() bool {
	switch s {
	case StatusComplete, StatusFailed, StatusCancelled, StatusRejected:
		return true
	}
	return false
}

// Interactive reports whether the job waits on someone outside the venue.
func (s JobStatus) Interactive() bool {
	switch s {
	case StatusPaused, StatusInputRequired, StatusAuthRequired:
		return true
	}
	return false
}

// Valid reports whether s is one of the statuses of the spec.
func (s JobStatus) Valid() bool {
	switch s {
	case StatusPending, StatusStarted, StatusComplete, StatusFailed, StatusCancelled,
		StatusRejected, StatusPaused, StatusInputRequired, StatusAuthRequired:
		return true
	}
	return false
}
