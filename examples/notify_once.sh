#!/usr/bin/env bash
# examples/notify_once.sh — send a notification (email, SMS, chat message) at
# most once per event, although hookinbox may run this handler more than once
# for it (a retry after a crash, a replay). README: "Notifications that cannot
# be deduplicated downstream".
#
# Run it as an exec action (no shell, no PATH search: absolute paths):
#   [endpoint.action]
#   type = "exec"
#   command = ["/opt/hooks/notify_once.sh", "welcome", "/opt/hooks/send-welcome-email"]
#   timeout_ms = 60000              # longer than SEND_TIMEOUT below
#
# SENDER [ARG...] gets the event body on stdin and talks to the provider. It
#   exits 0 once the provider accepted the message, printing the provider's
#     message id (the last line of its output);
#   exits 75 when it knows nothing was sent (refused, no connection): the
#     effect is marked failed and hookinbox retries the event later;
#   anything else (a crash, a timeout after the request went out) means "maybe
#     sent": the effect is marked unknown, and it is never sent again
#     automatically: a person checks the provider and resolves it.
#
# The ledger (hookinbox's handler API) decides whether to send at all:
#   201 claimed      → send now, then record the message id (complete)
#   200 done         → sent before: report its message id, send nothing
#   409 in_progress  → another attempt is sending it right now: retry later
#   409 unknown      → an earlier send may have happened: stop for a person
#   409 attempt ended → this run's attempt is over (lease lapsed, replayed): stop;
#                      the event's next attempt runs this script again
#
# The key is notify:<event>:<template>. <event> is HOOKINBOX_IDEMPOTENCY_KEY,
# which stays the same for every attempt and replay of the event, has a fixed
# length (keys are at most 200 bytes) and reveals nothing about the event.
#
# hookinbox passes HOOKINBOX_TOKEN (valid while this attempt runs) and
# HOOKINBOX_API. The token goes to curl as a header read from a file
# descriptor, never on its command line, where other local users could read it.
# Nothing here is a secret of your provider's: the sender holds those.
set -uo pipefail

readonly SEND_TIMEOUT=30  # seconds the sender may take; keep it below action.timeout_ms
readonly EX_TEMPFAIL=75   # hookinbox retries the event later

if [ $# -lt 2 ] || [ -z "$1" ]; then
  echo "usage: notify_once.sh TEMPLATE SENDER [ARG...]" >&2
  exit 2
fi
template=$1
shift
: "${HOOKINBOX_TOKEN:?run me as a hookinbox exec action: HOOKINBOX_TOKEN is unset}"
: "${HOOKINBOX_API:?run me as a hookinbox exec action: HOOKINBOX_API is unset}"

# A JSON string's content: backslashes and quotes escaped, control characters dropped.
json_escape() {
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  printf '%s' "$s" | LC_ALL=C tr -d '\000-\037'
}

# Percent-encodes everything but unreserved characters and ':', for a URL path segment.
url_encode() {
  local LC_ALL=C s=$1 out='' c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
      [A-Za-z0-9._~:-]) out+=$c ;;
      *) out+=$(printf '%%%02X' "'$c") ;;
    esac
  done
  printf '%s' "$out"
}

# api PATH JSON: POSTs to the handler API; sets $code (000 = no answer) and $answer.
api() {
  answer=$(curl -sS --max-time 10 -w '\n%{http_code}' -X POST "$HOOKINBOX_API$1" \
    -H @<(printf 'Authorization: Bearer %s\n' "$HOOKINBOX_TOKEN") \
    -H 'Content-Type: application/json' --data-binary "$2") || answer=$'\n000'
  code=${answer##*$'\n'}
  answer=${answer%$'\n'*}
}

# The external_ref of a "done" answer, still JSON-escaped (it is printed back as JSON).
done_ref() {
  local re='"external_ref":"(([^"\\]|\\.)*)"'
  [[ $1 =~ $re ]] && printf '%s' "${BASH_REMATCH[1]}"
}

key="notify:${HOOKINBOX_IDEMPOTENCY_KEY}:${template}"
effect="/effects/$(url_encode "$key")"

api /effects/claim "{\"key\":\"$(json_escape "$key")\"}"
case $code in
  201) ;;  # ours: send below
  200)
    ref=$(done_ref "$answer")
    echo "notification '$template' was sent before (message $ref): not sending it again" >&2
    printf '{"result_ref":"%s"}\n' "$ref"  # the event completes with the same message id
    exit 0 ;;
  409)
    if [[ $answer == *'"unknown"'* ]]; then
      echo "notification '$template' may or may not have been sent: check the provider, then resolve the event" >&2
      exit 1
    fi
    if [[ $answer == *'"attempt ended'* ]]; then
      echo "this attempt is over (its lease lapsed or the event was replayed): not sending; the next attempt will" >&2
      exit $EX_TEMPFAIL
    fi
    echo "another attempt is sending notification '$template': retry later" >&2
    exit $EX_TEMPFAIL ;;
  *)
    echo "handler API answered $code to the claim: retry later" >&2
    exit $EX_TEMPFAIL ;;
esac

# Claimed. The sender reads the event body from our stdin.
message_id=$(timeout "$SEND_TIMEOUT" "$@")
rc=$?
message_id=${message_id##*$'\n'}

if [ $rc -eq 0 ]; then
  # Sent. Record it; retry the record a few times, since a lost record means
  # the next attempt would find the claim dead and send again.
  for _ in 1 2 3; do
    api "$effect/complete" "{\"external_ref\":\"$(json_escape "$message_id")\"}"
    if [ "$code" = 200 ]; then
      printf '{"result_ref":"%s"}\n' "$(json_escape "$message_id")"
      exit 0
    fi
    sleep 1
  done
  echo "notification '$template' was sent (message $message_id) but the ledger did not record it ($code)" >&2
  exit 1
elif [ $rc -eq $EX_TEMPFAIL ]; then
  api "$effect/fail" '{"error":"sender reported nothing was sent"}'
  echo "sender sent nothing: retry later" >&2
  exit $EX_TEMPFAIL
else
  api "$effect/unknown" "{\"error\":\"sender ended with status $rc\"}"
  echo "sender ended with status $rc: notification '$template' may have been sent; marked unknown" >&2
  exit 1
fi
