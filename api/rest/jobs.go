package rest

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	venue "github.com/gridvenue/venue"
)

// JobIDInput names a job in the path.
type JobIDInput struct {
	ID string `path:"id" doc:"Job id: 32 hex digits, with or without 0x" example:"0x0192f3c4a5b6c7d8e9f0011223344556"`
}

// JobOutput is a job record.
type JobOutput struct {
	Body jobRecord
}

// ListJobsInput pages the caller's jobs.
type ListJobsInput struct {
	Offset int `query:"offset" minimum:"0" default:"0" doc:"Jobs to skip, oldest first"`
	Limit  int `query:"limit" minimum:"0" maximum:"1000" default:"1000" doc:"Most jobs to return (at most 1000)"`
}

// ListJobsOutput is a flat list of the caller's job ids, oldest first.
type ListJobsOutput struct {
	Total int `header:"X-Total-Count" doc:"How many jobs the caller has in all"`
	Body  []string
}

// ReplyInput is a client's answer to a job.
type ReplyInput struct {
	JobIDInput
	Body json.RawMessage `doc:"Any JSON value; a value that is not an object reaches the job as {\"content\": value}" example:"{\"answer\":42}"`
}

// ReplyOutput acknowledges a queued message.
type ReplyOutput struct {
	Status int
	Body   struct {
		Status     string `json:"status" example:"queued" doc:"Always queued"`
		QueueDepth int    `json:"queueDepth" doc:"Messages queued for the job, this one included"`
	}
}

// DeleteJobOutput confirms a deletion.
type DeleteJobOutput struct {
	Body struct {
		ID      string `json:"id" doc:"The deleted job's id"`
		Deleted bool   `json:"deleted" doc:"Always true"`
	}
}

func (s *Server) registerJobs() {
	huma.Register(s.api, s.documentErrors(s.op("list-jobs", http.MethodGet, "/api/v1/jobs", "List the caller's jobs", "Jobs"), map[string]string{"400": badPage,
		"403": "The caller acts under a UCAN sent as the bearer, which lists no jobs: read each begun with it by id"}), s.listJobs)
	op := s.op("get-job", http.MethodGet, "/api/v1/jobs/{id}", "Read a job record", "Jobs")
	huma.Register(s.api, s.documentErrors(op, map[string]string{"400": badJobID, "404": noJob}), s.getJob)
	op = s.op("reply-job", http.MethodPost, "/api/v1/jobs/{id}", "Send a message to a job", "Jobs")
	op.Description = "Delivers the client's answer to a job in INPUT_REQUIRED or AUTH_REQUIRED (or queues it for a job that will ask; " +
		"a message the job never takes goes with it when it ends). 409 if the job has finished."
	op.DefaultStatus = http.StatusAccepted
	huma.Register(s.api, s.documentErrors(op, map[string]string{"400": "A malformed job id, or a body that is not JSON", "404": noJob,
		"409": "The job has finished", "413": "The body is over the venue's limit"}), s.replyJob)
	s.registerCommand("cancel-job", "cancel", "Cancel a job", "Ends the job as CANCELLED and returns the final record; a finished job is returned unchanged.", s.e.Cancel, nil)
	s.registerCommand("pause-job", "pause", "Pause a job", "Moves an unfinished job to PAUSED; 409 if it has finished or is already paused.", s.e.Pause,
		map[string]string{"409": "The job has finished or is already paused"})
	s.registerCommand("resume-job", "resume", "Resume a paused job", "Moves a PAUSED job to STARTED and runs its operation again with the original input; 409 if it is not paused. "+
		"A resumed job counts among its caller's unfinished jobs again: past the limit the resume is refused (429, or 503 for the venue's) and the job stays PAUSED.", s.e.Resume,
		map[string]string{"409": "The job is not paused", "429": "The caller holds its limit of unfinished jobs (maxCallerJobs): the job stays PAUSED; let some finish, or cancel them",
			"503": "The venue holds its limit of unfinished jobs (maxJobs), or the job record could not be stored; the job stays PAUSED"})
	op = s.op("delete-job", http.MethodPut, "/api/v1/jobs/{id}/delete", "Delete a finished job's record", "Jobs")
	op.Description = "Removes the record. 409 if the job has not finished: cancel it first " +
		"(deleting a running job's record would leave its execution writing to nothing)."
	huma.Register(s.api, s.documentErrors(op, map[string]string{"400": badJobID, "404": noJob,
		"409": "The job has not finished: cancel it first"}), s.deleteJob)
	s.registerSSE()
}

func (s *Server) listJobs(ctx context.Context, in *ListJobsInput) (*ListJobsOutput, error) {
	ids, total, err := s.e.Jobs(ctx, in.Offset, in.Limit)
	if err != nil {
		return nil, toAPI(err)
	}
	out := &ListJobsOutput{Total: total, Body: make([]string, len(ids))}
	for i, id := range ids {
		out.Body[i] = id.String()
	}
	return out, nil
}

func (s *Server) getJob(ctx context.Context, in *JobIDInput) (*JobOutput, error) {
	id, err := venue.ParseJobID(in.ID)
	if err != nil {
		return nil, toAPI(err)
	}
	j, err := s.e.Job(ctx, id)
	if err == nil {
		j, err = s.servable(ctx, j, func() (*venue.Job, error) { return s.e.Job(ctx, id) })
	}
	if err != nil {
		return nil, toAPI(err)
	}
	return &JobOutput{Body: jobRecord{j}}, nil
}

func (s *Server) replyJob(ctx context.Context, in *ReplyInput) (*ReplyOutput, error) {
	id, err := venue.ParseJobID(in.ID)
	if err != nil {
		return nil, toAPI(err)
	}
	depth, err := s.e.Reply(ctx, id, in.Body)
	if err != nil {
		return nil, toAPI(err)
	}
	out := &ReplyOutput{Status: http.StatusAccepted}
	out.Body.Status, out.Body.QueueDepth = "queued", depth
	return out, nil
}

// Error descriptions the job routes share.
const (
	badPage  = "An offset or limit that is not a whole number in range, or one given twice"
	badJobID = "The id is not 32 hex digits"
	noJob    = "The caller has no such job"
)

func (s *Server) registerCommand(id, verb, summary, desc string, cmd func(context.Context, venue.JobID) (*venue.Job, error), errs map[string]string) {
	op := s.op(id, http.MethodPut, "/api/v1/jobs/{id}/"+verb, summary, "Jobs")
	op.Description = desc
	statuses := map[string]string{"400": badJobID, "404": noJob}
	maps.Copy(statuses, errs)
	op = s.documentErrors(op, statuses)
	for _, st := range []string{"429", "503"} {
		if r := op.Responses[st]; r != nil {
			retryLater(r)
		}
	}
	huma.Register(s.api, op, func(ctx context.Context, in *JobIDInput) (*JobOutput, error) {
		jid, err := venue.ParseJobID(in.ID)
		if err != nil {
			return nil, toAPI(err)
		}
		j, err := cmd(ctx, jid)
		if err == nil {
			j, err = s.servable(ctx, j, nil)
		}
		if err != nil {
			return nil, toAPI(err)
		}
		return &JobOutput{Body: jobRecord{j}}, nil
	})
}

func (s *Server) deleteJob(ctx context.Context, in *JobIDInput) (*DeleteJobOutput, error) {
	id, err := venue.ParseJobID(in.ID)
	if err != nil {
		return nil, toAPI(err)
	}
	if err := s.e.DeleteJob(ctx, id); err != nil {
		return nil, toAPI(err)
	}
	out := &DeleteJobOutput{}
	out.Body.ID, out.Body.Deleted = id.String(), true
	return out, nil
}
