#!/bin/sh
# An idle fake `codex app-server` for figure 5 (memory per idle session), in POSIX sh so that 100 of
# them cost the machine ~1 MB each instead of a Node process each. It answers initialize and
# thread/start with the recorded results handed over in BENCH_INIT_RESULT / BENCH_THREAD_RESULT
# (taken from codex/fixtures/text-turn.0.169.0.jsonl, Codex 0.169.0) and then waits. Reins writes the id
# first ({"id":N,"method":...}), which is all the parsing this needs.
if [ "$1" = "--version" ]; then
  echo "codex-cli 0.169.0"
  exit 0
fi
while IFS= read -r line; do
  id=${line#*\"id\":}
  id=${id%%,*}
  case "$line" in
    *'"method":"initialize"'*) printf '{"id":%s,"result":%s}\n' "$id" "$BENCH_INIT_RESULT" ;;
    *'"method":"thread/start"'*) printf '{"id":%s,"result":%s}\n' "$id" "$BENCH_THREAD_RESULT" ;;
    *'"method":"initialized"'*) ;;
    *'"id":'*) printf '{"id":%s,"error":{"code":-32601,"message":"idle fake"}}\n' "$id" ;;
  esac
done
