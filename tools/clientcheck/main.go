// Command clientcheck drives a running venue through a Go client that
// oapi-codegen generated from the venue's own /openapi (run.sh makes it):
// what a program calling the venue would do. Each check calls one endpoint
// and looks at the typed answer the generated client decoded; a body that
// does not match its documented schema shows up as a decode error or a
// missing typed field. It prints a line per check and exits 1 if any
// failed.
//
// Usage: go run . <base-url>   (after run.sh has generated ./venueclient)
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	vc "github.com/gridvenue/venue/tools/clientcheck/venueclient"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: clientcheck <base-url>")
		os.Exit(2)
	}
	c, err := vc.NewClientWithResponses(strings.TrimSuffix(os.Args[1], "/"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r := &run{ctx: ctx, c: c}
	r.status()
	r.jobs()
	r.assets()
	r.catalog()
	r.secrets()
	r.values()
	if r.failed > 0 {
		fmt.Printf("%d of %d checks failed\n", r.failed, r.checks)
		os.Exit(1)
	}
	fmt.Printf("all %d checks passed\n", r.checks)
}

// run holds the client and the tally.
type run struct {
	ctx            context.Context
	c              *vc.ClientWithResponses
	checks, failed int
}

// check records one check: ok, or the call's error and what came back (a
// generated response, whose status and raw body are shown, or a text).
func (r *run) check(name string, err error, ok bool, answer any) {
	r.checks++
	if err == nil && ok {
		fmt.Printf("ok   %s\n", name)
		return
	}
	r.failed++
	fmt.Printf("FAIL %s: err=%v %s\n", name, err, describe(answer))
}

func (r *run) status() {
	st, err := r.c.GetStatusWithResponse(r.ctx)
	r.check("GET /status", err, st != nil && st.JSON200 != nil && strings.HasPrefix(st.JSON200.Did, "did:web:"), st)
}

func (r *run) jobs() {
	wait := any(true)
	inv, err := r.c.InvokeWithResponse(r.ctx, nil, vc.InvokeJSONRequestBody{Operation: "v/test/ops/echo", Input: map[string]any{"a": 1}, Wait: &wait})
	r.check("POST /invoke with wait", err, inv != nil && inv.JSON201 != nil && inv.JSON201.Status == vc.COMPLETE, inv)
	if inv == nil || inv.JSON201 == nil {
		return
	}
	done := inv.JSON201.Id

	bad, err := r.c.InvokeWithResponse(r.ctx, nil, vc.InvokeJSONRequestBody{Operation: "core:read"})
	r.check("POST /invoke of a display name is 400", err, bad != nil && bad.JSON400 != nil &&
		strings.Contains(bad.JSON400.Error, "Cannot resolve operation: core:read"), bad)

	run, err := r.c.RunWithResponse(r.ctx, vc.RunJSONRequestBody{Operation: "v/test/ops/echo", Input: map[string]any{"a": 1}})
	r.check("POST /run", err, run != nil && run.JSON200 != nil && strings.TrimSpace(string(run.Body)) == `{"a":1}`, run)

	gj, err := r.c.GetJobWithResponse(r.ctx, done)
	r.check("GET /jobs/{id}", err, gj != nil && gj.JSON200 != nil && gj.JSON200.Id == done, gj)
	missing, err := r.c.GetJobWithResponse(r.ctx, "0x00000000000000000000000000000001")
	r.check("GET /jobs/{id} unknown is 404", err, missing != nil && missing.JSON404 != nil, missing)

	sse, err := r.c.StreamJob(r.ctx, done)
	var events []byte
	if err == nil {
		events, err = io.ReadAll(sse.Body)
		sse.Body.Close()
	}
	r.check("GET /jobs/{id}/sse", err, sse != nil && sse.StatusCode == 200 && bytes.Contains(events, []byte(`"status":"COMPLETE"`)), string(events))

	r.commands()
	r.reply()

	lj, err := r.c.ListJobsWithResponse(r.ctx, nil)
	r.check("GET /jobs", err, lj != nil && lj.JSON200 != nil && slices.Contains(*lj.JSON200, done), lj)
}

// commands pauses, resumes, cancels and deletes a slow job.
func (r *run) commands() {
	slow, err := r.c.InvokeWithResponse(r.ctx, nil, vc.InvokeJSONRequestBody{Operation: "v/test/ops/delay", Input: map[string]any{"ms": 5000, "value": 1}})
	r.check("POST /invoke without wait", err, slow != nil && slow.JSON201 != nil && slow.JSON201.Status == vc.PENDING, slow)
	if slow == nil || slow.JSON201 == nil {
		return
	}
	id := slow.JSON201.Id
	p, err := r.c.PauseJobWithResponse(r.ctx, id)
	r.check("PUT /jobs/{id}/pause", err, p != nil && p.JSON200 != nil && p.JSON200.Status == vc.PAUSED, p)
	res, err := r.c.ResumeJobWithResponse(r.ctx, id)
	r.check("PUT /jobs/{id}/resume", err, res != nil && res.JSON200 != nil && res.JSON200.Status != vc.PAUSED, res)
	res2, err := r.c.ResumeJobWithResponse(r.ctx, id)
	r.check("PUT /jobs/{id}/resume of a running job is 409", err, res2 != nil && res2.JSON409 != nil, res2)
	cn, err := r.c.CancelJobWithResponse(r.ctx, id)
	r.check("PUT /jobs/{id}/cancel", err, cn != nil && cn.JSON200 != nil && cn.JSON200.Status == vc.CANCELLED, cn)
	p2, err := r.c.PauseJobWithResponse(r.ctx, id)
	r.check("PUT /jobs/{id}/pause of a finished job is 409", err, p2 != nil && p2.JSON409 != nil, p2)
	d, err := r.c.DeleteJobWithResponse(r.ctx, id)
	r.check("PUT /jobs/{id}/delete", err, d != nil && d.JSON200 != nil && d.JSON200.Deleted, d)
	d2, err := r.c.DeleteJobWithResponse(r.ctx, id)
	r.check("PUT /jobs/{id}/delete again is 404", err, d2 != nil && d2.JSON404 != nil, d2)
}

// reply answers a job that asks its caller, then reads the answer back.
func (r *run) reply() {
	wait := any(true)
	ask, err := r.c.InvokeWithResponse(r.ctx, nil, vc.InvokeJSONRequestBody{Operation: "v/test/ops/ask", Input: map[string]any{"question": "Which colour?"}, Wait: &wait})
	r.check("POST /invoke of a job that asks", err, ask != nil && ask.JSON201 != nil && ask.JSON201.Status == vc.INPUTREQUIRED, ask)
	if ask == nil || ask.JSON201 == nil {
		return
	}
	rp, err := r.c.ReplyJobWithResponse(r.ctx, ask.JSON201.Id, map[string]any{"colour": "blue"})
	r.check("POST /jobs/{id} with the reply", err, rp != nil && rp.JSON202 != nil, rp)
	res, err := r.c.RunWithResponse(r.ctx, vc.RunJSONRequestBody{Operation: "v/ops/grid/job-result", Input: map[string]any{"id": ask.JSON201.Id}})
	r.check("the job took the reply", err, res != nil && res.JSON200 != nil && bytes.Contains(res.Body, []byte(`"blue"`)), res)
}

func (r *run) assets() {
	content := []byte("hello from a generated client\n")
	sum := sha256.Sum256(content)
	name, ct := "clientcheck", "text/plain"
	reg, err := r.c.RegisterAssetWithResponse(r.ctx, vc.RegisterAssetJSONRequestBody{Name: &name,
		Content: &vc.AssetMetadataContentStruct{ContentType: &ct, Sha256: hex.EncodeToString(sum[:])}})
	r.check("POST /assets", err, reg != nil && reg.JSON201 != nil && strings.HasPrefix(*reg.JSON201, "0x"), reg)
	if reg == nil || reg.JSON201 == nil {
		return
	}
	id := *reg.JSON201
	wrong, err := r.c.PutAssetContentWithBodyWithResponse(r.ctx, id, "text/plain", strings.NewReader("other bytes"))
	r.check("PUT /assets/{id}/content with the wrong hash is 400", err, wrong != nil && wrong.JSON400 != nil, wrong)
	put, err := r.c.PutAssetContentWithBodyWithResponse(r.ctx, id, "text/plain", bytes.NewReader(content))
	r.check("PUT /assets/{id}/content", err, put != nil && put.JSON200 != nil && strings.HasSuffix(*put.JSON200, hex.EncodeToString(sum[:])), put)
	meta, err := r.c.GetAssetWithResponse(r.ctx, id, nil)
	r.check("GET /assets/{id}", err, meta != nil && meta.JSON200 != nil && meta.HTTPResponse.Header.Get("ETag") != "", meta)
	if meta != nil && meta.HTTPResponse != nil {
		tag := meta.HTTPResponse.Header.Get("ETag")
		same, err := r.c.GetAssetWithResponse(r.ctx, id, &vc.GetAssetParams{IfNoneMatch: &tag})
		r.check("GET /assets/{id} with If-None-Match is 304", err, same != nil && same.StatusCode() == 304 && len(same.Body) == 0, same)
	}
	got, err := r.c.GetAssetContentWithResponse(r.ctx, id, nil)
	r.check("GET /assets/{id}/content", err, got != nil && got.StatusCode() == 200 && bytes.Equal(got.Body, content) &&
		strings.HasPrefix(got.HTTPResponse.Header.Get("Content-Type"), ct) &&
		got.HTTPResponse.Header.Get("ETag") == `"0x`+hex.EncodeToString(sum[:])+`"`, got)
	part := "bytes=2-5"
	ranged, err := r.c.GetAssetContentWithResponse(r.ctx, id, &vc.GetAssetContentParams{Range: &part})
	r.check("GET /assets/{id}/content with Range is 206", err, ranged != nil && ranged.StatusCode() == 206 &&
		bytes.Equal(ranged.Body, content[2:6]) && ranged.HTTPResponse.Header.Get("Content-Range") == fmt.Sprintf("bytes 2-5/%d", len(content)), ranged)
	past := fmt.Sprintf("bytes=%d-", len(content))
	unsatisfiable, err := r.c.GetAssetContentWithResponse(r.ctx, id, &vc.GetAssetContentParams{Range: &past})
	r.check("GET /assets/{id}/content past the end is 416", err, unsatisfiable != nil && unsatisfiable.JSON416 != nil, unsatisfiable)
	list, err := r.c.ListAssetsWithResponse(r.ctx, nil)
	r.check("GET /assets", err, list != nil && list.JSON200 != nil && slices.Contains(list.JSON200.Items, id), list)
	big := int64(1001)
	tooMany, err := r.c.ListAssetsWithResponse(r.ctx, &vc.ListAssetsParams{Limit: &big})
	r.check("GET /assets?limit=1001 is 400", err, tooMany != nil && tooMany.StatusCode() == 400, tooMany)
	unknown, err := r.c.GetAssetWithResponse(r.ctx, "0x"+strings.Repeat("0", 64), nil)
	r.check("GET /assets/{id} unknown is 404", err, unknown != nil && unknown.JSON404 != nil, unknown)
}

func (r *run) catalog() {
	ops, err := r.c.ListOperationsWithResponse(r.ctx)
	r.check("GET /operations", err, ops != nil && ops.JSON200 != nil && len(*ops.JSON200) > 0, ops)
	op, err := r.c.GetOperationWithResponse(r.ctx, "core:read")
	r.check("GET /operations/{name}", err, op != nil && op.JSON200 != nil && op.JSON200.Path == "v/ops/core/read", op)
}

func (r *run) secrets() {
	obj, err := r.c.PutSecretWithResponse(r.ctx, "CLIENTCHECK_A", map[string]any{"value": "tok-123456"})
	r.check(`PUT /secrets/{name} {"value": ...}`, err, obj != nil && obj.JSON200 != nil && obj.JSON200.Stored, obj)
	str, err := r.c.PutSecretWithResponse(r.ctx, "CLIENTCHECK_B", "tok-abcdef")
	r.check("PUT /secrets/{name} with a JSON string", err, str != nil && str.JSON200 != nil && str.JSON200.Stored, str)
	list, err := r.c.ListSecretsWithResponse(r.ctx)
	r.check("GET /secrets", err, list != nil && list.JSON200 != nil && slices.Contains(list.JSON200.Items, "CLIENTCHECK_A"), list)
	del, err := r.c.DeleteSecretWithResponse(r.ctx, "CLIENTCHECK_A")
	r.check("DELETE /secrets/{name}", err, del != nil && del.JSON200 != nil && del.JSON200.Deleted, del)
	again, err := r.c.DeleteSecretWithResponse(r.ctx, "CLIENTCHECK_A")
	r.check("DELETE /secrets/{name} again is 404", err, again != nil && again.StatusCode() == 404, again)
}

func (r *run) values() {
	rd, err := r.c.ReadValueWithResponse(r.ctx, &vc.ReadValueParams{Path: "v/info"})
	r.check("GET /values/read", err, rd != nil && rd.JSON200 != nil && rd.JSON200.Exists, rd)
	sl, err := r.c.SliceValuesWithResponse(r.ctx, &vc.SliceValuesParams{Path: "j"})
	r.check("GET /values/slice", err, sl != nil && sl.JSON200 != nil && sl.JSON200.Count > 0, sl)
	ls, err := r.c.ListValuesWithResponse(r.ctx, &vc.ListValuesParams{Path: "j"})
	r.check("GET /values/list", err, ls != nil && ls.JSON200 != nil && ls.JSON200.Count > 0, ls)
	cnt, err := r.c.CountValuesWithResponse(r.ctx, &vc.CountValuesParams{Path: "j"})
	r.check("GET /values/count", err, cnt != nil && cnt.JSON200 != nil && cnt.JSON200.Exists, cnt)
	by := "status"
	agg, err := r.c.AggregateValuesWithResponse(r.ctx, &vc.AggregateValuesParams{Path: "j", GroupBy: &by})
	r.check("GET /values/aggregate", err, agg != nil && agg.JSON200 != nil && agg.JSON200.Groups != nil, agg)
	in, err := r.c.InspectValuesWithResponse(r.ctx, &vc.InspectValuesParams{Path: []string{"v/info"}})
	r.check("GET /values/inspect", err, in != nil && in.JSON200 != nil && in.JSON200.Result != "", in)
	dots, err := r.c.ReadValueWithResponse(r.ctx, &vc.ReadValueParams{Path: "w/../v"})
	r.check("GET /values/read of a path with .. is 400", err, dots != nil && dots.StatusCode() == 400, dots)
}

// describe shows a generated response (a pointer to a struct with Body and
// HTTPResponse) as its status and body, anything else as it prints.
func describe(answer any) string {
	v := reflect.ValueOf(answer)
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return "no response"
	}
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Sprintf("%.300v", answer)
	}
	status := 0
	if resp, ok := v.Elem().FieldByName("HTTPResponse").Interface().(*http.Response); ok && resp != nil {
		status = resp.StatusCode
	}
	b, _ := v.Elem().FieldByName("Body").Interface().([]byte)
	return fmt.Sprintf("status=%d body=%.300s", status, b)
}
