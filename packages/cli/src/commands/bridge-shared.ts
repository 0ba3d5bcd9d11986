// What both bridge protocols take from @reins/bridges at start-up (flags, records, the protocol facts the
// help names), apart from each protocol's server, so that the bundle loads only the protocol asked for.
export {
  CODEX_PROTOCOL_VERSION,
  execRequestOf,
  fileRecords,
  launchOptionsOf,
  listenPlanOf,
  ParamsError,
  recordsDir,
} from '@reins/bridges';
