#!/usr/bin/env python3
"""examples/agent/agent.py — an AI agent behind hookinbox that pays for each
event's model call once and sends each reply once, although hookinbox may run
it several times for one event (a retry after a failure or a crash, a replay).

It reads a customer message (a form, a chat, a support inbox webhook), asks a
model which kind of message it is, and sends one templated reply:

  1. The classification is a step result (PUT/GET /v1/steps/classification):
     the first attempt pays for the model call and stores its answer; every
     later attempt and replay of the same event reads it back.
  2. The reply is an effect (POST /v1/effects/claim, key reply:<event>): only
     the attempt holding the claim sends it; one that finds it done sends
     nothing; a send whose outcome is unknown is never repeated automatically.

Run it as an exec action (see README.md next to this file):

  [endpoint.action]
  type = "exec"
  command = ["/usr/bin/python3", "/opt/hooks/agent.py",
             "--model-url", "http://127.0.0.1:11434/v1/chat/completions", "--model", "llama3.2",
             "--reply-url", "https://mail.example.com/api/send"]
  timeout_ms = 120000

hookinbox gives it the event body on stdin and HOOKINBOX_API, HOOKINBOX_TOKEN
and HOOKINBOX_IDEMPOTENCY_KEY in the environment. Exit codes as hookinbox reads
them: 0 done, 75 retry later (nothing was sent), anything else stops for a
person. Python 3 standard library only. Never prints the token, the model key
or the message.
"""

import argparse
import http.client
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

EX_TEMPFAIL = 75  # hookinbox retries the event later
CATEGORIES = ("billing", "bug", "sales", "other")
REPLIES = {
    "billing": "Thanks for writing about your invoice. Our billing team will answer within one business day.",
    "bug": "Thanks for the report. We have passed it to our engineers and will update you when it is fixed.",
    "sales": "Thanks for your interest! A member of our sales team will contact you shortly.",
    "other": "Thanks for your message. We will get back to you soon.",
}


class Retry(Exception):
    """Nothing was sent; hookinbox may run the event again later."""


class Stop(Exception):
    """A person must look (a reply may have been sent, or the input is unusable)."""


def request(method, url, body=None, headers=None, timeout=30):
    """(status, parsed JSON or None); status 0 when no answer came (nothing sent or the answer was lost)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            status, raw = res.status, res.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    except (urllib.error.URLError, http.client.HTTPException, OSError):
        return 0, None  # no (complete) answer
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, None


class Handler:
    """The handler API of the attempt hookinbox started us for."""

    def __init__(self):
        try:
            self.api = os.environ["HOOKINBOX_API"].rstrip("/")
            self.auth = {"Authorization": "Bearer " + os.environ["HOOKINBOX_TOKEN"]}
            self.event = os.environ["HOOKINBOX_IDEMPOTENCY_KEY"]
        except KeyError as e:
            raise Stop(f"run me as a hookinbox exec action: {e.args[0]} is unset")

    def get_step(self, name):
        status, body = request("GET", f"{self.api}/steps/{name}", headers=self.auth)
        if status == 200:
            return body
        if status == 404:
            return None
        raise Retry(f"handler API answered {status} reading step {name}")

    def put_step(self, name, value):
        status, _ = request("PUT", f"{self.api}/steps/{name}", value, self.auth)
        if status not in (200, 201):
            raise Retry(f"handler API answered {status} storing step {name}")

    def effect(self, key, action, body):
        path = f"{self.api}/effects/{urllib.parse.quote(key, safe=':')}/{action}"
        return request("POST", path, body, self.auth)[0]

    def claim(self, key):
        return request("POST", f"{self.api}/effects/claim", {"key": key}, self.auth)


def classify(args, text):
    """One model call: the message's category (OpenAI-compatible chat completions)."""
    headers = {}
    if args.model_key_file:
        with open(args.model_key_file, encoding="utf-8") as f:
            headers["Authorization"] = "Bearer " + f.read().strip()
    prompt = "Classify the customer message as one word: " + ", ".join(CATEGORIES) + "."
    status, body = request(
        "POST", args.model_url,
        {"model": args.model, "temperature": 0,
         "messages": [{"role": "system", "content": prompt}, {"role": "user", "content": text}]},
        headers, timeout=args.timeout)
    if status != 200 or not isinstance(body, dict):
        raise Retry(f"the model answered {status or 'nothing'}")
    try:
        answer = body["choices"][0]["message"]["content"].strip().lower()
    except (KeyError, IndexError, TypeError, AttributeError):
        raise Retry("the model's answer has no choices[0].message.content")
    return next((c for c in CATEGORIES if c in answer), "other")


def send_once(args, api, to, text):
    """Sends the reply unless an earlier attempt did; returns the message id."""
    key = "reply:" + api.event
    status, body = api.claim(key)
    if status == 200:
        return (body or {}).get("external_ref", "")  # sent before: not again
    if status == 409 and (body or {}).get("status") == "unknown":
        raise Stop("an earlier reply may have been sent: check the mail provider, then resolve the event")
    if status != 201:
        raise Retry(f"the claim of the reply answered {status}")
    sent, answer = request("POST", args.reply_url, {"to": to, "text": text, "idempotency_key": key},
                           timeout=args.timeout)
    if 200 <= sent < 300:
        ref = str((answer or {}).get("id", ""))
        # A sent reply must be recorded: a claim this event still holds would
        # answer "claimed" again on a replay, and send twice.
        for _ in range(3):
            if api.effect(key, "complete", {"external_ref": ref}) == 200:
                return ref
        api.effect(key, "unknown", {"error": "sent, but not recorded"})
        raise Stop("the reply was sent but the ledger did not record it: marked unknown for a person")
    if sent == 0:
        # No answer: it may have been sent. Never send it again automatically.
        api.effect(key, "unknown", {"error": "no answer from the mail provider"})
        raise Stop("no answer from the mail provider: the reply may have been sent")
    api.effect(key, "fail", {"error": f"mail provider answered {sent}"})
    raise Retry(f"the mail provider answered {sent}: nothing sent")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model-url", required=True, help="OpenAI-compatible /v1/chat/completions URL")
    p.add_argument("--model", default="gpt-4o-mini", help="model name sent to it")
    p.add_argument("--model-key-file", help="file holding the model API key (never on the command line)")
    p.add_argument("--reply-url", required=True, help="where a reply is POSTed as {to, text, idempotency_key}")
    p.add_argument("--timeout", type=float, default=60, help="seconds per model or mail request")
    args = p.parse_args()
    try:
        api = Handler()
        try:
            event = json.load(sys.stdin)
        except ValueError:
            raise Stop("the event body is not JSON")
        data = event.get("data", event) if isinstance(event, dict) else {}
        text, to = str(data.get("message", "")), str(data.get("email", ""))
        if not text or not to:
            raise Stop("the event has no data.message or data.email")

        stored = api.get_step("classification")
        if stored is None:
            stored = {"category": classify(args, text)}
            api.put_step("classification", stored)  # paid once: every later attempt reads it
        category = stored.get("category", "other")

        ref = send_once(args, api, to, REPLIES.get(category, REPLIES["other"]))
        print(json.dumps({"result_ref": ref}))
        return 0
    except Retry as e:
        print(f"agent: {e}; retry later", file=sys.stderr)
        return EX_TEMPFAIL
    except Stop as e:
        print(f"agent: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
