#!/usr/bin/env python3
"""model-server: a scripted model provider on loopback, for end-to-end tests
of real agent CLIs.

    model-server.py PORTFILE LOG SCRIPT

Listens on 127.0.0.1 (an ephemeral port, written to PORTFILE) and answers as
the provider the request's path names:
    POST /v1/messages[?beta=true]     Anthropic Messages (Claude Code), JSON or SSE
    POST /v1/messages/count_tokens    Anthropic token count
    POST /v1beta/models/M:streamGenerateContent[?alt=sse]  Gemini (gemini-cli), SSE
    POST /v1beta/models/M:generateContent, :countTokens     Gemini, JSON
    POST /v1/responses                OpenAI Responses (codex), SSE
Any other path gets 404 (logged).

SCRIPT is a JSON list of steps, played in order to the agent's main loop (the
request that offers the shell tool: Bash, run_shell_command, exec_command):
{"shell": CMD}, {"write": [PATH, TEXT]} (PATH relative to the agent's working
directory, which the request states; codex, whose tools have no file writer
under a model it does not know, writes it through its shell: printf > PATH),
then {"text": T} ends the turn. The step is the number of tool results the
conversation already holds, so a retried request gets the same answer.
Requests without the tools (side queries: titles, summaries) get "ok".

LOG gets one JSON line per request: path, model, stream, step, and the text of
every tool result the request carries (what the agent's tools really did).
"""
import http.server
import json
import os
import re
import shlex
import sys

portfile, logpath, scriptpath = sys.argv[1:4]
with open(scriptpath) as f:
    SCRIPT = json.load(f)


def log(rec):
    with open(logpath, "a") as f:
        f.write(json.dumps(rec) + "\n")


def workdir(req):
    m = re.search(r"(?:[Ww]orking directory|working in the directory): (/[^\s\\\"]+)", json.dumps(req))
    return m.group(1) if m else "."


def block_text(c):
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "".join(block_text(b.get("text", b.get("content", ""))) if isinstance(b, dict) else str(b)
                       for b in c)
    return str(c)


def anthropic_results(req):
    out = []
    for m in req.get("messages", []):
        if m.get("role") == "user" and isinstance(m.get("content"), list):
            for b in m["content"]:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    out.append(block_text(b.get("content", "")))
    return out


def anthropic_blocks(req):
    """The content blocks of the answer, and its stop reason."""
    tools = {t.get("name") for t in req.get("tools", []) if isinstance(t, dict)}
    results = anthropic_results(req)
    step = len(results)
    if "Bash" not in tools or step >= len(SCRIPT):
        return [{"type": "text", "text": "ok"}], "end_turn", step, results
    s = SCRIPT[step]
    tid = "toolu_corral_%02d" % step
    if "shell" in s:
        return [{"type": "tool_use", "id": tid, "name": "Bash",
                 "input": {"command": s["shell"], "description": "scripted step %d" % step}}], "tool_use", step, results
    if "write" in s:
        path = s["write"][0]
        if not path.startswith("/"):
            path = workdir(req).rstrip("/") + "/" + path
        return [{"type": "tool_use", "id": tid, "name": "Write",
                 "input": {"file_path": path, "content": s["write"][1]}}], "tool_use", step, results
    return [{"type": "text", "text": s.get("text", "done")}], "end_turn", step, results


def gemini_results(req):
    out = []
    for c in req.get("contents", []):
        for p in c.get("parts", []) if isinstance(c, dict) else []:
            if isinstance(p, dict) and "functionResponse" in p:
                out.append(json.dumps(p["functionResponse"].get("response", {})))
    return out


def gemini_parts(req):
    names = {f.get("name") for t in req.get("tools", []) if isinstance(t, dict)
             for f in t.get("functionDeclarations", []) if isinstance(f, dict)}
    results = gemini_results(req)
    step = len(results)
    if "run_shell_command" not in names or step >= len(SCRIPT):
        return [{"text": "ok"}], step, results
    s = SCRIPT[step]
    if "shell" in s:
        return [{"functionCall": {"name": "run_shell_command",
                                  "args": {"command": s["shell"], "description": "scripted step %d" % step}}}], step, results
    if "write" in s:
        path = s["write"][0]
        if not path.startswith("/"):
            path = workdir(req).rstrip("/") + "/" + path
        return [{"functionCall": {"name": "write_file",
                                  "args": {"file_path": path, "content": s["write"][1]}}}], step, results
    return [{"text": s.get("text", "done")}], step, results


def responses_results(req):
    return [block_text(i.get("output", "")) for i in req.get("input", [])
            if isinstance(i, dict) and i.get("type") == "function_call_output"]


def responses_items(req):
    names = {t.get("name") for t in req.get("tools", []) if isinstance(t, dict)}
    results = responses_results(req)
    step = len(results)
    if "exec_command" not in names or step >= len(SCRIPT):
        return [{"type": "message", "role": "assistant", "text": "ok"}], step, results
    s = SCRIPT[step]
    cmd = s.get("shell")
    if "write" in s:
        cmd = "printf '%%s' %s > %s" % (shlex.quote(s["write"][1]), shlex.quote(s["write"][0]))
    if cmd is not None:
        # tty: codex runs the command on a pty of its own (the agent's pty)
        return [{"type": "function_call", "call_id": "call_corral_%02d" % step, "name": "exec_command",
                 "arguments": json.dumps({"cmd": cmd, "tty": "shell" in s, "yield_time_ms": 30000})}], step, results
    return [{"type": "message", "role": "assistant", "text": s.get("text", "done")}], step, results


def responses_stream(model, items):
    rid = "resp_corral"
    ev = [{"type": "response.created", "response": {"id": rid, "model": model, "status": "in_progress"}}]
    out = []
    for i, it in enumerate(items):
        if it["type"] == "message":
            it = {"type": "message", "id": "msg_corral_%d" % i, "role": "assistant", "status": "completed",
                  "content": [{"type": "output_text", "text": it["text"], "annotations": []}]}
        else:
            it = dict(it, id="fc_corral_%d" % i, status="completed")
        out.append(it)
        ev.append({"type": "response.output_item.added", "output_index": i, "item": it})
        ev.append({"type": "response.output_item.done", "output_index": i, "item": it})
    ev.append({"type": "response.completed", "response": {
        "id": rid, "model": model, "status": "completed", "output": out,
        "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                  "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}}})
    return sse(ev)


def sse(events):
    return "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in events).encode()


def anthropic_stream(model, blocks, stop):
    ev = [{"type": "message_start", "message": {
        "id": "msg_corral", "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}}]
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            ev.append({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
            ev.append({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": b["text"]}})
        else:
            ev.append({"type": "content_block_start", "index": i, "content_block": dict(b, input={})})
            ev.append({"type": "content_block_delta", "index": i,
                       "delta": {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}})
        ev.append({"type": "content_block_stop", "index": i})
    ev.append({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
               "usage": {"output_tokens": 5}})
    ev.append({"type": "message_stop"})
    return sse(ev)


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def answer(self, code, ctype, body):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        log({"path": self.path, "method": "GET"})
        self.answer(404, "application/json", b'{"error": "not found"}')

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        try:
            req = json.loads(raw or b"{}")
        except ValueError:
            req = {}
        path = self.path.split("?")[0]
        if path == "/v1/messages/count_tokens":
            log({"path": path})
            return self.answer(200, "application/json", b'{"input_tokens": 10}')
        if path == "/v1/messages":
            model = req.get("model", "claude")
            blocks, stop, step, results = anthropic_blocks(req)
            log({"path": path, "model": model, "stream": bool(req.get("stream")), "step": step,
                 "results": results, "answer": blocks})
            if req.get("stream"):
                return self.answer(200, "text/event-stream", anthropic_stream(model, blocks, stop))
            msg = {"id": "msg_corral", "type": "message", "role": "assistant", "model": model,
                   "content": blocks, "stop_reason": stop, "stop_sequence": None,
                   "usage": {"input_tokens": 10, "output_tokens": 5}}
            return self.answer(200, "application/json", json.dumps(msg).encode())
        if path == "/v1/responses":
            model = req.get("model", "codex")
            items, step, results = responses_items(req)
            log({"path": path, "model": model, "stream": bool(req.get("stream")), "step": step,
                 "results": results, "answer": items})
            return self.answer(200, "text/event-stream", responses_stream(model, items))
        m = re.match(r"/v1(?:beta|alpha)?/models/([^/:]+):(streamGenerateContent|generateContent|countTokens)$", path)
        if m and m.group(2) == "countTokens":
            log({"path": path})
            return self.answer(200, "application/json", b'{"totalTokens": 10}')
        if m:
            parts, step, results = gemini_parts(req)
            log({"path": path, "model": m.group(1), "stream": m.group(2) == "streamGenerateContent",
                 "step": step, "results": results, "answer": parts})
            body = json.dumps({"candidates": [{"content": {"role": "model", "parts": parts},
                                               "finishReason": "STOP", "index": 0}],
                               "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                                                 "totalTokenCount": 15},
                               "modelVersion": m.group(1)})
            if m.group(2) == "streamGenerateContent":
                return self.answer(200, "text/event-stream", ("data: %s\r\n\r\n" % body).encode())
            return self.answer(200, "application/json", body.encode())
        log({"path": self.path, "method": "POST"})
        self.answer(404, "application/json", b'{"error": "not found"}')


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
