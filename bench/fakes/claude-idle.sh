#!/bin/sh
# An idle fake `claude` (stream-json in and out) for figure 5, in POSIX sh: it answers the Agent
# SDK's initialize control request with the recorded response handed over in BENCH_CLAUDE_INIT
# (from claude-code/fixtures/text-turn.2.1.197.jsonl, Claude Code 2.1.197) and then waits.
case "$1" in --version) echo "2.1.197 (Claude Code)"; exit 0 ;; esac
while IFS= read -r line; do
  case "$line" in
    *'"type":"control_request"'*)
      rid=${line#*\"request_id\":\"}
      rid=${rid%%\"*}
      case "$line" in
        *'"subtype":"initialize"'*) printf '{"type":"control_response","response":{"subtype":"success","request_id":"%s","response":%s}}\n' "$rid" "$BENCH_CLAUDE_INIT" ;;
        *) printf '{"type":"control_response","response":{"subtype":"success","request_id":"%s","response":{}}}\n' "$rid" ;;
      esac
      ;;
  esac
done
