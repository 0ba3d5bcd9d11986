#!/bin/sh
# A fake `codex app-server` for the daemon section (events/s to many clients, memory per session),
# in awk so that it costs the machine little. Like the real one it hosts many threads (Reins' codex
# adapter shares one app-server between sessions of the same launch settings): each thread/start gets
# a thread id of its own, and each turn/start is answered with the recorded turn on that thread:
# turn/started, the agent message's item/started, BENCH_DELTAS text deltas written as fast as the pipe
# takes them, item/completed, turn/completed. Frames: the recorded Codex 0.169.0 ones, with @THREAD@ /
# @TURN@ / @ITEM@ placeholders (bench/lib/codex-frames.mjs). Until a turn/start it is idle. Seen with
# mawk 1.3.4 (Debian 12). BENCH_DELTA_PAD (JSON-safe text, repeated BENCH_DELTA_PAD_REPEAT times)
# is added to every delta: big frames for the daemon's memory while a harness streams (figure 8d).
if [ "$1" = "--version" ]; then
  echo "codex-cli 0.169.0"
  exit 0
fi
program='
BEGIN {
  repeat = ENVIRON["BENCH_DELTA_PAD_REPEAT"] + 0
  if (repeat < 1) repeat = 1
  for (r = 0; r < repeat; r++) pad = pad ENVIRON["BENCH_DELTA_PAD"]
}
function frame(text) {
  gsub(/@THREAD@/, thread, text)
  gsub(/@TURN@/, turn, text)
  gsub(/@ITEM@/, item, text)
  print text
}
{
  if (!match($0, /"id":[0-9]+/)) next
  id = substr($0, RSTART + 5, RLENGTH - 5)
  if (index($0, "\"method\":\"initialize\"")) print "{\"id\":" id ",\"result\":" ENVIRON["BENCH_INIT_RESULT"] "}"
  else if (index($0, "\"method\":\"thread/start\"")) {
    threads++
    thread = sprintf("01a22b18-53ed-76d1-97a1-%012d", threads)
    frame("{\"id\":" id ",\"result\":" ENVIRON["BENCH_THREAD_RESULT"] "}")
  }
  else if (index($0, "\"method\":\"turn/start\"")) {
    turns++
    thread = ""
    if (match($0, /"threadId":"[^"]*"/)) thread = substr($0, RSTART + 12, RLENGTH - 13)
    turn = sprintf("01a22b18-542b-7190-b9f2-%012d", turns)
    item = "msg_bench_" turns
    frame("{\"id\":" id ",\"result\":" ENVIRON["BENCH_TURN_RESULT"] "}")
    frame(ENVIRON["BENCH_TURN_STARTED"])
    frame(ENVIRON["BENCH_ITEM_STARTED"])
    head = ENVIRON["BENCH_DELTA_HEAD"]; tail = ENVIRON["BENCH_DELTA_TAIL"]
    gsub(/@THREAD@/, thread, head); gsub(/@TURN@/, turn, head); gsub(/@ITEM@/, item, head)
    n = ENVIRON["BENCH_DELTAS"] + 0
    for (i = 1; i <= n; i++) print head "token " i " " pad tail
    frame(ENVIRON["BENCH_ITEM_COMPLETED"])
    frame(ENVIRON["BENCH_TURN_COMPLETED"])
  }
  else print "{\"id\":" id ",\"error\":{\"code\":-32601,\"message\":\"burst fake\"}}"
  fflush()
}'
# mawk (Debian's awk) reads a pipe in blocks unless -W interactive: it would wait for more requests.
if command -v mawk >/dev/null 2>&1; then exec mawk -W interactive "$program"; fi
exec awk "$program"
