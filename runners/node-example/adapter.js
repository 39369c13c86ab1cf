#!/usr/bin/env node
'use strict';
/**
 * The memoir-conform adapter for memoir-mini: the protocol layer only.
 *
 * Protocol (adapter protocol version 1): one JSON request per line on stdin,
 * exactly one JSON response per line on stdout, in order, flushed per line.
 * Nothing but responses goes to stdout: logs go to stderr, which the runner
 * shows next to a failure. End of stdin ends the process with exit code 0.
 *
 *   request:  {"protocol": 1, "id": 7, "op": "add_goal", "args": {...}}
 *   response: {"id": 7, "ok": true, "result": {...}}
 *         or  {"id": 7, "ok": false, "error": {"kind": "unsupported" | "invalid_input" | "internal", "message": "..."}}
 *
 * To wrap your own implementation, keep this file's shape and replace the
 * calls into memoir-mini in OPS; drop an op from OPS (and from `claims` what
 * needs it) and the adapter answers `unsupported` for it, which is honest.
 */

const readline = require('readline');
const mini = require('./memoir-mini');

const PROTOCOLS = [1];

function log(line) {
  process.stderr.write(`memoir-mini: ${line}\n`);
}

/** Arguments must be an object; a named string argument must be a string. */
function text(args, name) {
  if (typeof args[name] !== 'string') throw new mini.InvalidInput(`\`${name}\` must be a string (the full text of session.json)`);
  return args[name];
}

/** A writer op on the store's session.json: args are {store, ...the op's own}. */
function sessionOp(op) {
  return ({ store, ...args }) => mini.applySessionOp(store, op, args, { log });
}

// op name -> handler(args) -> result. Everything listed here is really done.
const OPS = {
  describe: () => ({
    name: 'memoir-mini (node example)',
    version: '0.1.0',
    protocols: PROTOCOLS,
    spec: '0.1.2',
    // Only the levels this implementation earns (spec 8); the runner checks them.
    claims: ['reader', 'writer', 'full'],
    ops: Object.keys(OPS),
    caps: { ...mini.DEFAULT_CAPS },
    // Optional read_store reports (docs/adapter-protocol.md, E15): every entry says whether it is live.
    reports: ['entry_live'],
  }),

  // Reader (spec 3, 4, 6, App. A)
  read_store: (args) => mini.readStore(args.store),

  // Writer (spec 4.1, 5.3): each is one locked read-mutate-write of session.json.
  add_goal: sessionOp('add_goal'),
  complete_goal: sessionOp('complete_goal'),
  add_next_action: sessionOp('add_next_action'),
  complete_next_action: sessionOp('complete_next_action'),
  add_question: sessionOp('add_question'),
  add_decision: sessionOp('add_decision'),
  hide_decision: sessionOp('hide_decision'),
  record_session: sessionOp('record_session'),
  write_entry: (args) => mini.writeEntry(args.store, args.link, args.frontmatter, args.body),
  update_entry: (args) => mini.updateEntry(args.store, args.link, args.set, args.unset),

  // Full (spec 5): sessions arrive as the raw text of session.json.
  merge_sessions: (args) => ({ session: mini.mergeSessionTexts(text(args, 'local'), text(args, 'remote')) }),
  merge_stores: (args) => mini.mergeStores(args.local, args.remote, args.out),
};

/** Answer one request line with one response object; never throws. */
function handle(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    return { id: null, ok: false, error: { kind: 'invalid_input', message: `request is not JSON: ${error.message}` } };
  }
  const id = request !== null && typeof request === 'object' && 'id' in request ? request.id : null;
  const fail = (kind, message) => ({ id, ok: false, error: { kind, message } });
  if (request === null || typeof request !== 'object' || Array.isArray(request)) return fail('invalid_input', 'request must be a JSON object');
  if (request.protocol !== undefined && !PROTOCOLS.includes(request.protocol)) {
    return fail('invalid_input', `protocol ${JSON.stringify(request.protocol)} not spoken; this adapter speaks ${PROTOCOLS.join(', ')}`);
  }
  const op = request.op;
  if (typeof op !== 'string' || !Object.prototype.hasOwnProperty.call(OPS, op)) {
    return fail('unsupported', `op ${JSON.stringify(op)} is not implemented by memoir-mini`);
  }
  const args = request.args === undefined ? {} : request.args;
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return fail('invalid_input', '`args` must be an object');
  try {
    const result = OPS[op](args);
    return { id, ok: true, result: result === undefined ? {} : result };
  } catch (error) {
    if (error instanceof mini.InvalidInput) return fail('invalid_input', error.message);
    log(`internal error in ${op}: ${error.stack || error}`);
    return fail('internal', String(error.message || error));
  }
}

function main() {
  const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  input.on('line', (line) => {
    if (line.trim() === '') return; // blank lines are not requests
    // Writes to a pipe are synchronous in Node on POSIX, so each line is
    // flushed before the next request is read.
    process.stdout.write(`${JSON.stringify(handle(line))}\n`);
  });
  input.on('close', () => {
    process.exitCode = 0;
  });
}

if (require.main === module) main();

module.exports = { handle, OPS };
