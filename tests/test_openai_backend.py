"""The OpenAI-compatible backend against a misbehaving server: each way a server can fail ends as one
line (a `ModelServerError`, exit code 2 in the CLI), never a traceback or a call that outlives
`request_timeout`.

The server is real HTTP on 127.0.0.1 (stdlib `http.server` in a thread, a random port), started by
each test with a script of answers; the backend talks to it through the `openai` client, as to
`vllm serve` (which `tests/vllm_env/` does for real). Nothing in the backend is replaced.
"""
import http.server, json, os, shutil, ssl, subprocess, sys, threading, time
from pathlib import Path
import pytest
from reveal_nb.config import RevealConfig, RevealInputError, with_overrides
from reveal_nb.backends.models import StructuredOutputError
from reveal_nb.backends.served import ModelServerError, OpenAIBackend

from conftest import CLI
REPLY = {"choices": [{"index": 0, "message": {"role": "assistant", "content": '{"n": 3}'},
                      "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 11, "completion_tokens": 4}}
SCHEMA = {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}},
          "additionalProperties": False}


# ---- the fake server: each POST /chat/completions takes its script's next answer (the last stays)

def answer(status=200, body=REPLY, ctype="application/json", headers=()):
    "A whole answer."
    def send(h):
        data = (json.dumps(body) if isinstance(body, (dict, list)) else body).encode()
        h.send_response(status); h.send_header("Content-Type", ctype)
        for k, v in [("Content-Length", str(len(data))), *headers]: h.send_header(k, v)
        h.end_headers(); h.wfile.write(data)
    return send


def cut(h):
    "Headers promise 1000 bytes; 20 come, then the connection closes."
    h.send_response(200); h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", "1000"); h.end_headers()
    h.wfile.write(b'{"choices": [{"mess'); h.wfile.flush(); h.close_connection = True


def drip(where):
    "A byte every 0.2 s for about 15 s, in the headers or in the body: no read ever waits long."
    def send(h):
        head = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n"
                b"X-Pad: " + b"a" * 50 + b"\r\n\r\n")
        data = head if where == "headers" else b" " * 75
        if where == "body": h.wfile.write(head)
        for byte in data:
            if h.server.stopping.is_set(): break
            try: h.wfile.write(bytes([byte])); h.wfile.flush()
            except OSError: break
            time.sleep(0.2)
        h.close_connection = True
    return send


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass

    def _record(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(n)) if n else None
        self.server.seen.append(dict(path=self.path, headers=dict(self.headers), body=body,
                                     t=time.monotonic()))

    def do_GET(self):
        self._record()
        answer(body={"object": "list", "data": [{"id": "served-model", "object": "model"}]})(self)

    def do_POST(self):
        self._record()
        script = self.server.script
        (script.pop(0) if len(script) > 1 else script[0])(self)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    "A self-signed certificate for 127.0.0.1, made with the openssl command: (cert, key)."
    if not shutil.which("openssl"): pytest.skip("the https case needs the openssl command")
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", d / "key.pem", "-out", d / "cert.pem"], check=True, capture_output=True)
    return d / "cert.pem", d / "key.pem"


@pytest.fixture
def server():
    "start(*answers) -> base URL of a fresh server on 127.0.0.1; its requests are in `.seen`."
    started = []
    def start(*answers, creds="", tls=None):
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(*tls)
            srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
        srv.daemon_threads, srv.script, srv.seen = True, list(answers), []
        srv.stopping = threading.Event()
        threading.Thread(target=srv.serve_forever, args=(0.05,), daemon=True).start()
        started.append(srv); start.seen = srv.seen
        return f"{'https' if tls else 'http'}://{creds}127.0.0.1:{srv.server_address[1]}/v1"
    yield start
    for srv in started: srv.stopping.set(); srv.shutdown(); srv.server_close()


def _cfg(url, **kw):
    return with_overrides(RevealConfig(), {"llm_backend": "openai", "llm_base_url": url,
                                           "llm_model": "served-model", "reply_cache": False,
                                           "http_retries": 1, "request_timeout": 5, **kw})


def _cli(url, *args, env=None, **sets):
    "Run `reveal-nb chat` against `url`; (exit code, non-empty stderr lines)."
    sets = {"llm_backend": "openai", "llm_base_url": url, "llm_model": "served-model",
            "reply_cache": "false", "http_retries": 0, **sets}
    cmd = CLI + ["chat", "hi", *args] + [a for k, v in sets.items() for a in ("--set", f"{k}={v}")]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, **(env or {})))
    return res.returncode, [l for l in res.stderr.splitlines() if l.strip()]


def _one_line(code, lines, *needles):
    assert code == 2 and len(lines) == 1, (code, lines[-20:])
    assert lines[0].startswith("reveal-nb: error: "), lines
    for n in needles: assert n in lines[0], lines[0]
    return lines[0]


# ---- the cases of the issue, one test each

def test_non_json_answer_is_one_line(server):
    url = server(answer(body="<html><body><h1>Model is loading</h1></body></html>", ctype="text/html"))
    with pytest.raises(ModelServerError, match="not JSON") as e:
        OpenAIBackend(_cfg(url)).chat("hi")
    assert "Model is loading" in str(e.value) and "\n" not in str(e.value)
    _one_line(*_cli(url), "/chat/completions failed", "not JSON")


def test_connection_cut_mid_body_is_retried_then_one_line(server):
    url = server(cut)
    with pytest.raises(ModelServerError, match="connection error") as e:
        OpenAIBackend(_cfg(url, http_retries=1)).chat("hi")
    assert "after 2 attempts" in str(e.value) and len(server.seen) == 2
    _one_line(*_cli(url), "connection error")


def test_answer_without_choices_is_one_line(server):
    url = server(answer(body={"object": "chat.completion", "id": "x"}))
    with pytest.raises(ModelServerError, match=r"no choices\[0\]\.message\.content"):
        OpenAIBackend(_cfg(url)).chat("hi")
    _one_line(*_cli(url), "choices")


def test_reply_breaking_its_schema_after_the_retries_is_one_line(server, tmp_path):
    bad = dict(REPLY, choices=[{"index": 0, "message": {"content": '{"n": "x"}'}}])
    url = server(answer(body=bad))
    llm = OpenAIBackend(_cfg(url))
    with pytest.raises(ModelServerError, match="no valid structured reply after 3 attempts") as e:
        llm.chat("How many?", role="answerer", schema=SCHEMA)
    assert isinstance(e.value, StructuredOutputError)      # still the layer's error
    assert len(server.seen) == 3 and llm.ledger.totals()["answerer"]["failures"] == 1
    # strict=False (as the loop calls): the layer's result marked unusable, no exception
    assert llm.chat("How many?", role="answerer", schema=SCHEMA, strict=False).error
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    _one_line(*_cli(url, "--schema", str(tmp_path / "schema.json")), "breaks the schema")


def test_429_is_retried_after_its_retry_after(server):
    "A 429 is waited out as the server asks; a wait past the call's deadline is not waited for."
    busy = {"error": {"message": "busy"}}
    url = server(answer(429, busy, headers=[("Retry-After", "1")]), answer())
    llm = OpenAIBackend(_cfg(url, llm_model="bundled:smollm2-135m-instruct", http_retries=2))
    r = llm.chat("How many?", role="planner", schema=SCHEMA, max_new_tokens=20)
    posts = [s for s in server.seen if s["path"].endswith("/chat/completions")]
    assert r.parsed == {"n": 3} and (r.prompt_tokens, r.completion_tokens) == (11, 4)
    assert len(posts) == 2 and posts[1]["t"] - posts[0]["t"] >= 0.95
    body = posts[1]["body"]       # the model the server lists, the schema as json_schema, no key sent
    assert body["model"] == "served-model" and body["max_tokens"] == 20
    assert body["response_format"]["type"] == "json_schema"
    assert "Authorization" not in posts[1]["headers"]
    assert llm.ledger.totals()["planner"]["calls"] == 1

    url = server(answer(429, busy, headers=[("Retry-After", "30")]), answer())
    t0 = time.monotonic()
    said = r"HTTP 429 \(it asks to retry after 30s, more than the [0-9.]+s left of request_timeout=3s\): busy"
    with pytest.raises(ModelServerError, match=said) as e:
        OpenAIBackend(_cfg(url, http_retries=2, request_timeout=3)).chat("hi")
    assert time.monotonic() - t0 < 2, e.value


def test_a_repeated_429_says_how_little_time_was_left(server):
    "A server that keeps asking for 1 s more: the line says the wait exceeds what is left, not the whole timeout."
    busy = {"error": {"message": "busy"}}
    url = server(answer(429, busy, headers=[("Retry-After", "1")]))
    with pytest.raises(ModelServerError, match=r"more than the 0\.\d+s left of request_timeout=3s\)") as e:
        OpenAIBackend(_cfg(url, http_retries=8, request_timeout=3)).chat("hi")
    assert "HTTP 429" in str(e.value)


def test_a_redirect_to_a_closed_port_is_a_connection_error(server):
    "The server sends the client to a port nothing listens on: the line says the connection failed, not 'timeout'."
    import socket
    with socket.socket() as s: s.bind(("127.0.0.1", 0)); closed = s.getsockname()[1]
    url = server(answer(307, {}, headers=[("Location", f"http://127.0.0.1:{closed}/v1/chat/completions")]))
    with pytest.raises(ModelServerError, match="connection error") as e:
        OpenAIBackend(_cfg(url, http_retries=5, request_timeout=3)).chat("hi")
    assert "request_timeout" not in str(e.value) and "ConnectError" in str(e.value), e.value


@pytest.mark.parametrize("where", ["body", "headers", "https body"])
def test_slow_drip_is_bounded_by_request_timeout(server, where, request, monkeypatch):
    "A byte every 0.2 s never trips a read timeout; the call still ends at `request_timeout`."
    tls = None
    if where.startswith("https"):       # TLS wraps the socket the deadline must reach
        tls = request.getfixturevalue("certificate")
        monkeypatch.setenv("SSL_CERT_FILE", str(tls[0]))
    url = server(drip(where.split()[-1]), tls=tls)
    llm = OpenAIBackend(_cfg(url, request_timeout=2, http_retries=3))
    t0 = time.monotonic()
    with pytest.raises(ModelServerError, match=r"no complete answer within request_timeout=2s"):
        llm.chat("hi")
    took = time.monotonic() - t0      # 2 s, one back-off (at most 0.5 s), a busy machine's slack
    assert took < 3.5, f"{took:.1f}s"
    assert len(server.seen) == 1      # no attempt starts after the deadline


@pytest.mark.parametrize("bad", ["ftp://127.0.0.1:8000/v1", "127.0.0.1:8000/v1", "localhost:8000/v1",
                                 "http:///v1"])
def test_base_url_must_be_http_with_a_host(bad):
    with pytest.raises(RevealInputError, match="llm_base_url"):
        OpenAIBackend(_cfg(bad))
    _one_line(*_cli(bad), "field 'llm_base_url'", "http:// or https://")


@pytest.mark.parametrize("status", [400, 503])
def test_credentials_and_error_bodies_stay_out_of_messages(server, status, monkeypatch):
    "Neither the URL's `user:pass@`, nor a key the server echoes, nor its HTML page reach the terminal."
    key = "sk-local-7c2f9e1d"
    page = ("<!DOCTYPE html>\n<html><head><style>body{color:red}</style></head>\n<body>\x1b[31m"
            f"<h1>Bad request</h1>\n<p>rejected key {key}</p>\n" + "<p>filler</p>\n" * 300
            + "</body></html>")
    url = server(answer(status, page, ctype="text/html"), creds="alice:s3cret-pw@")
    monkeypatch.setenv("REVEAL_TEST_KEY", key)
    with pytest.raises(ModelServerError) as e:
        OpenAIBackend(_cfg(url, llm_api_key_env="REVEAL_TEST_KEY", http_retries=0)).chat("hi")
    line = _one_line(*_cli(url, llm_api_key_env="REVEAL_TEST_KEY"),
                     f"HTTP {status}", "Bad request", "http://***@127.0.0.1:")
    for text in (str(e.value), line):
        assert "s3cret" not in text and "alice" not in text and key not in text, text
        assert "\x1b" not in text and "<" not in text and "\n" not in text and len(text) < 300, text
