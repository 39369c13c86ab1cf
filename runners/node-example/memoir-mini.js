'use strict';
/**
 * memoir-mini: a small but complete memoir implementation (spec v0.1.2) in
 * plain Node.js (>= 18), with no dependencies.
 *
 * It exists to be copied. `adapter.js` beside it is the thin protocol layer;
 * everything the memoir format asks of an implementation is here, in the
 * order the spec describes it:
 *
 *   1. identity and dates ........ spec 5.1, 5.2
 *   2. frontmatter ............... spec 3.1 (line based, no YAML engine)
 *   3. entry files ............... spec 3, Appendix A (legacy dialects)
 *   4. session file .............. spec 4.1, 6 (load, migrate, degrade, render)
 *   5. writer operations ......... spec 4.1, 5.3 (stamping, parking, tombstones)
 *   6. merge ..................... spec 5 (what Full conformance is about)
 *   7. store I/O ................. spec 4.1 (lock file, temp + rename), 6
 *
 * Only part 7 touches files or the clock; parts 1-6 take plain data and
 * return plain data, so they can be tested without a disk.
 *
 * Where the spec leaves a question open, this code makes the choices that
 * memoir-conform documents in docs/spec-ambiguities.md; each is named by its
 * AMB-... id at the place it is made.
 */

const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

/** An error the caller caused (bad arguments, a read-only store): `invalid_input`. */
class InvalidInput extends Error {}

const KNOWN_VERSION = 1; // spec 6: the data schema version this code understands

// Caps are the implementation's choice (spec 4.1); these are the reference
// implementation's, and `describe` announces them to the runner.
const DEFAULT_CAPS = Object.freeze({
  goals: 3,
  next_actions: 8,
  parked_actions: 20,
  open_questions: 5,
  decisions: 10,
  completed_actions: 50,
  completed_goals: 50,
  history: 30,
});

// The date field of each list under `current`: its merge recency key (5.2).
const DATE_FIELD = Object.freeze({
  goals: 'set_on',
  next_actions: 'added',
  parked_actions: 'added',
  open_questions: 'asked',
  decisions: 'date',
  completed_actions: 'done_at',
  completed_goals: 'done_at',
});
const KNOWN_LISTS = Object.keys(DATE_FIELD);
const KNOWN_TOP_LEVEL = ['version', 'created_at', 'updated_at', 'machines', 'current', 'history'];

const ENTRY_TYPES = ['fact', 'preference', 'decision', 'lesson', 'goal', 'next_action'];
// Appendix A: the legacy type vocabulary. `project` is a dossier with no
// atomic mapping, read as an opaque legacy entry (null here).
const LEGACY_TYPES = { user: 'preference', feedback: 'lesson', reference: 'fact', project: null };

const PURGED_TEXT = '[purged]';

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function has(object, key) {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** Compare strings by code point (as Python does), not by UTF-16 unit. */
function compareText(a, b) {
  const x = Array.from(a, (c) => c.codePointAt(0));
  const y = Array.from(b, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

// ===========================================================================
// 1. Identity (spec 5.1) and dates (spec 5.2)
// ===========================================================================

// Python's str.isspace set (AMB-CASEFOLD): JS trim() differs, it strips
// U+FEFF and keeps U+001C..U+001F and U+0085.
const SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const TRIM = new RegExp(`^[${SPACE}]+|[${SPACE}]+$`, 'g');

function trim(text) {
  return text.replace(TRIM, '');
}

/**
 * Identity: trimmed and case-folded (AMB-CASEFOLD: Unicode full case
 * folding, so `Straße` and `STRASSE` are one item). JS has no casefold();
 * per code point, lower -> upper -> lower gives the fold (ß -> ss, ﬁ -> fi,
 * ς -> σ) except for dotless i and Cherokee, handled by hand. Checked
 * against Python's str.casefold over every assigned code point.
 */
function normalize(text) {
  let out = '';
  for (const ch of trim(text)) {
    const cp = ch.codePointAt(0);
    if (cp === 0x131 || (cp >= 0x13a0 && cp <= 0x13f5)) out += ch;
    else if (cp >= 0x13f8 && cp <= 0x13fd) out += String.fromCodePoint(cp - 8);
    else if (cp >= 0xab70 && cp <= 0xabbf) out += String.fromCodePoint(cp - 0xab70 + 0x13a0);
    else out += ch.toLowerCase().toUpperCase().toLowerCase();
  }
  return out;
}

/** Lowercase hex SHA-256 of the normalized text: a purged tombstone's identity (5.3.1). */
function textHash(text) {
  return crypto.createHash('sha256').update(normalize(text), 'utf8').digest('hex');
}

/** A purged tombstone is hidden and carries text_hash (AMB-PURGE-UNHIDDEN: a bare hash is no identity). */
function isPurged(item) {
  return item.hidden === true && typeof item.text_hash === 'string';
}

/**
 * The identity key of a session-list item, always in hash form, so that a
 * purged tombstone and the plain copies it suppresses meet under one key.
 * Null for an item with no identity (AMB-MALFORMED-ITEMS).
 */
function itemKey(item) {
  if (!isObject(item)) return null;
  if (isPurged(item)) return item.text_hash.trim().toLowerCase();
  return typeof item.text === 'string' ? textHash(item.text) : null;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Microseconds since the epoch for an ISO 8601 date or date-time, else null
 * (AMB-DATES: date-only is midnight UTC, no offset means UTC). Microseconds,
 * not milliseconds, so that `.123456` and `.123457` differ.
 */
function parseDate(value) {
  if (typeof value !== 'string') return null;
  const text = trim(value);
  let m = DATE_ONLY.exec(text);
  const parts = m ? [m[1], m[2], m[3], '0', '0', '0', '', null] : (m = DATE_TIME.exec(text)) && m.slice(1);
  if (!parts) return null;
  const [year, month, day, hour, minute, second] = parts.slice(0, 6).map((p) => Number(p || 0));
  if (year < 1 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const moment = new Date(0);
  moment.setUTCFullYear(year, month - 1, day); // Date.UTC would read years 0..99 as 19xx
  if (moment.getUTCDate() !== day) return null; // February 30th rolled over: not a date
  moment.setUTCHours(hour, minute, second, 0);
  let micros = moment.getTime() * 1000 + Number((parts[6] || '').slice(0, 6).padEnd(6, '0'));
  const offset = parts[7];
  if (offset && offset !== 'Z' && offset !== 'z') {
    const digits = offset.slice(1).replace(':', '');
    const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || 0);
    micros -= (offset[0] === '-' ? -1 : 1) * minutes * 60e6;
  }
  return micros;
}

/** A missing or unparseable date compares as the epoch: it loses to any real date (5.2). */
function sortKey(value) {
  const micros = parseDate(value);
  return micros === null ? 0 : micros;
}

// ===========================================================================
// 2. Frontmatter (spec 3.1): the restricted YAML subset, read line by line
//    (AMB-FRONTMATTER-LINES). Never throws: what is outside the subset is
//    read as leniently as it can be, as a validator would report it.
// ===========================================================================

const BOM = '\uFEFF';
const LINE_BREAK = /\r\n|\r|\n/;
const KEY_BAD_START = "-?:,[]{}#&*!|>'\"%@`";

/**
 * Where the frontmatter is: { contentStart, closeStart, bodyStart } offsets,
 * or null. The opening `---` may follow a preamble of blank lines and HTML
 * comments (AMB-PREAMBLE: real stores put banners there).
 */
function locateFrontmatter(text) {
  const at = (pattern, from) => {
    pattern.lastIndex = from;
    return pattern.exec(text);
  };
  let pos = 0;
  for (;;) {
    const blank = at(/[ \t]*(?:\r\n|\r|\n)/y, pos);
    if (blank) { pos += blank[0].length; continue; }
    const start = pos + at(/[ \t]*/y, pos)[0].length;
    if (!text.startsWith('<!--', start)) break;
    const end = text.indexOf('-->', start + 4);
    if (end < 0) return null;
    const rest = at(/[ \t]*(?:\r\n|\r|\n|$)/y, end + 3);
    if (!rest) return null; // more text after the comment on its line
    pos = end + 3 + rest[0].length;
    if (pos >= text.length) return null;
  }
  const opening = at(/---[ \t]*(?:\r\n|\r|\n)/y, pos);
  if (!opening) return null;
  const contentStart = pos + opening[0].length;
  const close = at(/(?<=\n|\r)---[ \t]*(?:\r\n|\r|\n|$)/g, contentStart);
  if (!close) return null; // never closed: read as a file without frontmatter
  return { contentStart, closeStart: close.index, bodyStart: close.index + close[0].length };
}

/** The frontmatter's lines as {indent, content}, blank and `#` comment lines dropped. */
function frontmatterLines(region) {
  const raw = region.split(LINE_BREAK);
  if (region === '' || /[\r\n]$/.test(region)) raw.pop();
  const lines = [];
  for (const line of raw) {
    const content = line.replace(/^[ \t]+|[ \t]+$/g, '');
    if (content === '' || content.startsWith('#')) continue;
    lines.push({ indent: /^[ \t]*/.exec(line)[0].length, content });
  }
  return lines;
}

const isItemLine = (line) => line.content === '-' || line.content.startsWith('- ');

/** true/false, null/~/nothing, an integer, else the text itself (dates stay strings). */
function plainScalar(raw) {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null' || raw === '~' || raw === '') return null;
  if (/^-?[0-9]+$/.test(raw) && raw.length <= 4000) return Number(raw); // beyond 2^53 loses digits
  return raw;
}

const ESCAPES = {
  '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t',
  0: '\0', a: '\x07', v: '\v', e: '\x1b', ' ': ' ', N: '\x85', _: '\xa0', L: '\u2028', P: '\u2029',
};
const HEX_ESCAPES = { x: 2, u: 4, U: 8 };

/** A double-quoted value (JSON and YAML escapes); anything odd reads as the raw text. */
function doubleQuoted(raw) {
  let out = '';
  for (let i = 1; i < raw.length; i += 1) {
    const ch = raw[i];
    if (ch === '"') return raw.slice(i + 1).trim() === '' ? out : raw; // text after the quote: raw
    if (ch !== '\\') { out += ch; continue; }
    const code = raw[i + 1];
    if (code !== undefined && has(ESCAPES, code)) { out += ESCAPES[code]; i += 1; continue; }
    const width = HEX_ESCAPES[code];
    const digits = width ? raw.slice(i + 2, i + 2 + width) : '';
    if (width && digits.length === width && /^[0-9a-fA-F]+$/.test(digits) && parseInt(digits, 16) <= 0x10ffff) {
      const cp = parseInt(digits, 16);
      out += cp <= 0xffff ? String.fromCharCode(cp) : String.fromCodePoint(cp);
      i += 1 + width;
      continue;
    }
    return raw; // an unknown escape, or a backslash at the end
  }
  return raw; // never closed on its line
}

/** A single-quoted value (`''` is one quote); anything odd reads as the raw text. */
function singleQuoted(raw) {
  let out = '';
  let i = 1;
  for (;;) {
    const close = raw.indexOf("'", i);
    if (close < 0) return raw;
    out += raw.slice(i, close);
    if (raw[close + 1] === "'") { out += "'"; i = close + 2; continue; }
    return raw.slice(close + 1).trim() === '' ? out : raw;
  }
}

/** Reads the frontmatter lines into fields: a key's block may hold a list or a one-level mapping. */
class FrontmatterReader {
  constructor(lines) {
    this.lines = lines;
    this.pos = 0;
  }

  peek() {
    return this.lines[this.pos];
  }

  read() {
    const fields = new Map();
    for (let line; (line = this.peek()) !== undefined;) {
      if (line.indent > 0) { this.pos += 1; continue; } // a stray indented line
      this.readEntry(fields, line);
    }
    return toObject(fields);
  }

  readEntry(mapping, line) {
    this.pos += 1;
    if (isItemLine(line)) return; // a list item with no key above it
    const colon = /:(?=[ \t]|$)/.exec(line.content);
    if (!colon) return; // not `key: value`
    const key = line.content.slice(0, colon.index).replace(/[ \t]+$/, '');
    if (!key || KEY_BAD_START.includes(key[0])) return;
    const raw = line.content.slice(colon.index + 1).replace(/^[ \t]+/, '');
    mapping.delete(key); // a duplicate key: the last one counts, in the last place
    mapping.set(key, raw ? this.readValue(raw, line, false) : this.readBlock(line));
  }

  /** `key:` with nothing after it: an indented block, a list at the key's indent, or null. */
  readBlock(parent) {
    const next = this.peek();
    if (next === undefined) return null;
    if (next.indent > parent.indent) return isItemLine(next) ? this.readList(next.indent) : this.readMapping(next.indent);
    if (next.indent === parent.indent && isItemLine(next)) return this.readList(next.indent);
    return null;
  }

  readMapping(indent) {
    const mapping = new Map();
    for (let line; (line = this.peek()) !== undefined && line.indent >= indent;) {
      if (line.indent > indent) { this.pos += 1; continue; }
      this.readEntry(mapping, line);
    }
    return toObject(mapping);
  }

  readList(indent) {
    const items = [];
    for (let line; (line = this.peek()) !== undefined && line.indent >= indent;) {
      if (line.indent > indent) { this.pos += 1; continue; }
      if (!isItemLine(line)) break;
      this.pos += 1;
      const raw = line.content.slice(1).replace(/^[ \t]+/, '');
      if (raw) { items.push(this.readValue(raw, line, true)); continue; }
      const nested = this.peek();
      if (nested !== undefined && nested.indent > line.indent) {
        items.push(isItemLine(nested) ? this.readList(nested.indent) : this.readMapping(nested.indent));
      } else items.push('');
    }
    return items;
  }

  /** One value; list items are strings, never typed (spec 3.1: "simple string lists"). */
  readValue(raw, line, asItem) {
    if (raw[0] === '"') return doubleQuoted(raw);
    if (raw[0] === "'") return singleQuoted(raw);
    if (/^[|>][0-9+-]*[ \t]*(?:#.*)?$/.test(raw)) {
      // A block scalar is outside the subset; read its lines joined.
      const taken = [];
      for (let next; (next = this.peek()) !== undefined && next.indent > line.indent; this.pos += 1) taken.push(next.content);
      return taken.join('\n');
    }
    return asItem ? raw : plainScalar(raw);
  }
}

/** A Map as a plain object; fromEntries defines keys such as `__proto__` as data. */
function toObject(map) {
  return Object.fromEntries(map);
}

/** Split an entry file into frontmatter fields and body (a leading BOM is ignored). */
function parseEntryText(text) {
  const clean = text.startsWith(BOM) ? text.slice(1) : text;
  const where = locateFrontmatter(clean);
  if (!where) return { hasFrontmatter: false, fields: {}, body: clean };
  const fields = new FrontmatterReader(frontmatterLines(clean.slice(where.contentStart, where.closeStart))).read();
  return { hasFrontmatter: true, fields, body: clean.slice(where.bodyStart) };
}

// -- writing the canonical subset form -----------------------------------------

const YAML_WORDS = new Set(['y', 'n', 'yes', 'no', 'true', 'false', 'on', 'off', 'null', '~']);
const NUMBER_LIKE = /^(?:[-+]?(?:\.?[0-9]|\.(?:inf|nan)$)|0[xob]|[0-9]{4}-[0-9])/i;
const UNSAFE = /[\p{Cc}\p{Cs}\p{Co}\p{Cn}\u2028\u2029\uFEFF\x85]/u;

/** Whether a string written plain would read back differently, here or in a YAML engine. */
function needsQuotes(text) {
  if (text === '' || text !== text.replace(/^[ \t]+|[ \t]+$/g, '')) return true;
  if (KEY_BAD_START.includes(text[0]) || YAML_WORDS.has(text.toLowerCase()) || NUMBER_LIKE.test(text)) return true;
  if (text.includes(': ') || text.includes(' #') || text.includes('\t') || text.endsWith(':')) return true;
  return UNSAFE.test(text);
}

function quote(text) {
  let out = '"';
  for (const ch of text) {
    const named = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r' }[ch];
    if (named) out += named;
    else if (UNSAFE.test(ch)) {
      const cp = ch.codePointAt(0);
      out += cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\U${cp.toString(16).padStart(8, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}

function formatScalar(value, where) {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (Number.isInteger(value)) return String(value);
  if (typeof value === 'string') return needsQuotes(value) ? quote(value) : value;
  throw new InvalidInput(`${where}: ${JSON.stringify(value)} cannot be written in the frontmatter subset (spec 3.1)`);
}

function checkKey(key, where) {
  if (key === '' || key !== trim(key) || KEY_BAD_START.includes(key[0]) || key.includes(': ') || key.endsWith(':') ||
      key.includes(' #') || key.includes('\t') || UNSAFE.test(key)) {
    throw new InvalidInput(`${where}: key ${JSON.stringify(key)} cannot be written as a plain key`);
  }
}

/** The lines of one key: `key: v`, a `- item` string list, or a one-level mapping (spec 3.1). */
function formatField(key, value) {
  checkKey(key, 'frontmatter');
  if (Array.isArray(value)) {
    if (value.length === 0) throw new InvalidInput(`${key}: an empty list cannot be written in the subset`);
    return [`${key}:`, ...value.map((item) => {
      if (typeof item !== 'string') throw new InvalidInput(`${key}: list items must be strings`);
      return `  - ${formatScalar(item, key)}`;
    })];
  }
  if (isObject(value)) {
    if (Object.keys(value).length === 0) throw new InvalidInput(`${key}: an empty mapping cannot be written in the subset`);
    return [`${key}:`, ...Object.entries(value).map(([sub, v]) => {
      checkKey(sub, key);
      if (Array.isArray(v) || isObject(v)) throw new InvalidInput(`${key}.${sub}: nesting deeper than one level is outside the subset`);
      return `  ${sub}: ${formatScalar(v, `${key}.${sub}`)}`;
    })];
  }
  return [`${key}: ${formatScalar(value, key)}`];
}

/** The canonical frontmatter block, `---` lines included. */
function serializeFrontmatter(fields) {
  const lines = Object.entries(fields).flatMap(([key, value]) => formatField(key, value));
  return ['---', ...lines, '---'].join('\n') + '\n';
}

/**
 * Edit top-level frontmatter keys line by line: a key in `set` has its lines
 * replaced (or is appended before the closing `---`), a key in `unset` loses
 * its lines, and every other byte of the file stays as it was, line endings
 * and unknown fields included (spec 3.2; spec 8: never rewrite what you were
 * not asked to touch). A file without frontmatter gets a block in front.
 */
function editFrontmatter(text, set, unset) {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const bom = text.startsWith(BOM) ? BOM : '';
  const clean = text.slice(bom.length);
  const changes = new Map(Object.entries(set));
  const where = locateFrontmatter(clean);
  const fieldLines = (key, value) => formatField(key, value).map((line) => line + eol).join('');
  if (!where) {
    const block = [...changes].map(([key, value]) => fieldLines(key, value)).join('');
    return `${bom}---${eol}${block}---${eol}${clean}`;
  }
  const region = clean.slice(where.contentStart, where.closeStart);
  const lines = region.match(/[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g) || [];
  const removed = new Set([...unset, ...changes.keys()]);
  let out = '';
  let key = null; // the key whose block the current line belongs to
  for (const line of lines) {
    const start = /^([^\s#:][^:]*):(?:\s|$)/.exec(line);
    if (start && !line.startsWith('- ')) {
      key = start[1].trim();
      if (changes.has(key)) {
        out += fieldLines(key, changes.get(key));
        changes.delete(key); // a duplicate of this key later on is dropped
        continue;
      }
    }
    if (key === null || !removed.has(key)) out += line;
  }
  for (const [k, v] of changes) out += fieldLines(k, v);
  return bom + clean.slice(0, where.contentStart) + out + clean.slice(where.closeStart);
}

// ===========================================================================
// 3. Entry files (spec 3, 6, Appendix A)
// ===========================================================================

/** The body's lines, each marked as inside a fenced code block or not. */
function bodyLines(body) {
  let fence = null;
  return body.split(LINE_BREAK).map((line) => {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === null) {
      if (opener) fence = opener[1];
      return { line, inFence: opener !== null };
    }
    if (opener && opener[1][0] === fence[0] && opener[1].length >= fence.length &&
        line.trim().slice(opener[1].length).trim() === '') fence = null;
    return { line, inFence: true };
  });
}

/** The first `# H1` outside code fences (Appendix A: a bare file's name). */
function firstHeading(body) {
  for (const { line, inFence } of bodyLines(body)) {
    const m = inFence ? null : /^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (m && m[1].trim()) return m[1].trim();
  }
  return null;
}

/** The `**How to apply:**` body section, up to the next bold label or heading (Appendix A). */
function howToApplySection(body) {
  let taken = null;
  for (const { line, inFence } of bodyLines(body)) {
    if (taken === null) {
      const m = inFence ? null : /^[ \t]*\*\*[ \t]*how to apply[ \t]*(?::\*\*|\*\*:)[ \t]*(.*)$/i.exec(line);
      if (m) taken = [m[1]];
      continue;
    }
    if (!inFence && (/^[ \t]*\*\*[^*\r\n]+?(?::\*\*|\*\*:)/.test(line) || /^ {0,3}#{1,6}(?:[ \t]|$)/.test(line))) break;
    taken.push(line);
  }
  const text = taken === null ? '' : taken.join('\n').trim();
  return text || null;
}

/** `[[wikilinks]]` in order, once each; `[[x|label]]` and `[[x#part]]` link to x (spec 3.4). */
function wikilinks(body) {
  const seen = [];
  for (const m of body.matchAll(/\[\[([^\[\]\r\n]+?)\]\]/g)) {
    const target = m[1].split('|')[0].split('#')[0].trim();
    if (target && !seen.includes(target)) seen.push(target);
  }
  return seen;
}

/** Appendix A: `originSessionId` (top level or under metadata) reads as origin.session_id. */
function mapOriginSession(fields, legacy) {
  const metadata = isObject(fields.metadata) ? fields.metadata : {};
  for (const [where, id] of [['originSessionId', fields.originSessionId], ['metadata.originSessionId', metadata.originSessionId]]) {
    if (id === undefined || id === null) continue;
    if (fields.origin === undefined || fields.origin === null) fields.origin = {};
    if (!isObject(fields.origin)) return;
    if (has(fields.origin, 'session_id')) continue; // an explicit origin wins
    fields.origin = { ...fields.origin, session_id: id };
    legacy.push(`${where} read as origin.session_id`);
  }
}

/**
 * What a reader presents for one entry file (the protocol's read_store
 * entry). `fields` are the frontmatter after the Appendix A mappings;
 * `legacy` lists the mappings applied (for humans; not part of the protocol).
 */
function readEntry(link, text) {
  const parsed = parseEntryText(text);
  const fields = parsed.fields;
  const version = fields.schema_version;
  if (Number.isInteger(version) && version > KNOWN_VERSION) {
    // Spec 6: a newer schema is not interpreted at all, and the file is left alone.
    return { link, status: 'quarantined', type: null, name: null, fields: {}, links: [], legacy: [`schema_version ${version}`] };
  }
  const body = parsed.body;
  const legacy = [];
  if (!parsed.hasFrontmatter) {
    legacy.push('no frontmatter');
    return { link, status: 'opaque', type: null, name: firstHeading(body) || link, fields: {}, body, links: wikilinks(body), legacy };
  }
  const metadata = fields.metadata;
  if ((fields.type === undefined || fields.type === null) && isObject(metadata) && metadata.type !== undefined && metadata.type !== null) {
    fields.type = metadata.type;
    legacy.push('metadata.type read as type');
  }
  mapOriginSession(fields, legacy);
  let type = fields.type;
  if (typeof type === 'string' && has(LEGACY_TYPES, type)) {
    const mapped = LEGACY_TYPES[type];
    legacy.push(mapped ? `type ${type} read as ${mapped}` : `type ${type}: a legacy dossier, opaque`);
    if (type === 'feedback') {
      // Legacy lessons carry the trigger as description and the rule in the body.
      if (!has(fields, 'trigger') && typeof fields.description === 'string') fields.trigger = fields.description;
      const section = has(fields, 'how_to_apply') ? null : howToApplySection(body);
      if (section) fields.how_to_apply = section;
    }
    if (mapped) fields.type = type = mapped;
  }
  let name = fields.name;
  if (!(typeof name === 'string' && trim(name))) name = Number.isInteger(name) ? String(name) : firstHeading(body) || link;
  return {
    link,
    status: ENTRY_TYPES.includes(type) ? 'ok' : 'opaque', // spec 8: unknown types are opaque
    type: typeof type === 'string' ? type : null,
    name,
    fields,
    body,
    links: wikilinks(body),
    legacy,
  };
}

// ===========================================================================
// 4. Session file (spec 4.1, 6)
// ===========================================================================

function emptySession() {
  return { version: KNOWN_VERSION, machines: {}, current: Object.fromEntries(KNOWN_LISTS.map((n) => [n, []])), history: [] };
}

// The migration ladder (spec 6, "Backward"): MIGRATIONS[n] takes version n
// to n + 1, one pure step each. Version 0 is a file written before `version`.
const MIGRATIONS = {
  0: (data) => ({ ...data, version: 1 }),
};

/**
 * Load session.json text. Never throws. `status` is "absent" (no file),
 * "degraded" (unparseable, not a session, or a newer version: spec 6 says
 * do not interpret it; `reason` says which) or "ok". A degraded load gives
 * an empty valid state; the original bytes are the caller's to preserve.
 */
function loadSessionText(text) {
  const degraded = (reason) => ({ status: 'degraded', session: emptySession(), reason });
  if (text === null || text === undefined) return { status: 'absent', session: emptySession(), reason: null };
  let data;
  try {
    data = JSON.parse(text);
  } catch (_) {
    return degraded('unparseable');
  }
  if (!isObject(data)) return degraded('malformed');
  let version = data.version === undefined ? 0 : data.version;
  if (!Number.isInteger(version) || version < 0) return degraded('malformed');
  if (version > KNOWN_VERSION) return degraded('newer-version');
  while (version < KNOWN_VERSION) data = MIGRATIONS[version++](data);
  return { status: 'ok', session: sanitize(data), reason: null };
}

/** Fill defaults; keep unknown keys (spec 5.4); drop list items that have no identity. */
function sanitize(data) {
  const session = { ...data, version: KNOWN_VERSION };
  const current = isObject(data.current) ? { ...data.current } : {};
  for (const name of KNOWN_LISTS) {
    current[name] = (Array.isArray(current[name]) ? current[name] : []).filter((item) => itemKey(item) !== null).map((item) => ({ ...item }));
  }
  session.current = current;
  session.machines = Object.fromEntries(Object.entries(isObject(data.machines) ? data.machines : {})
    .filter(([, info]) => isObject(info)).map(([uuid, info]) => [uuid, { ...info }]));
  session.history = Array.isArray(data.history) ? data.history.filter(isObject).map((row) => ({ ...row })) : [];
  for (const stamp of ['created_at', 'updated_at']) if (has(session, stamp) && typeof session[stamp] !== 'string') delete session[stamp];
  return session;
}

/** Identity -> the tombstone with the newest done_at. */
function tombstoneIndex(tombstones) {
  const index = new Map();
  for (const t of tombstones) {
    const held = index.get(itemKey(t));
    if (!held || sortKey(t.done_at) > sortKey(held.done_at)) index.set(itemKey(t), t);
  }
  return index;
}

/** A temporal tombstone suppresses every copy not added (set) after its done_at (5.3.2). */
function isSuppressed(item, tombstones, dateField) {
  const t = tombstones.get(itemKey(item));
  return t !== undefined && sortKey(item[dateField]) <= sortKey(t.done_at);
}

/**
 * The live view a reader presents (spec 4.1, 8): no hidden decision, nor
 * a copy a purged tombstone names (5.3.1); no completed action or goal;
 * parked actions are open and rendered.
 */
function render(session) {
  const c = session.current;
  const doneActions = tombstoneIndex(c.completed_actions);
  const doneGoals = tombstoneIndex(c.completed_goals);
  const hidden = new Set(c.decisions.filter((d) => d.hidden === true).map(itemKey));
  const texts = (items) => items.map((item) => item.text).filter((text) => typeof text === 'string');
  return {
    goals: texts(c.goals.filter((g) => !isSuppressed(g, doneGoals, 'set_on'))),
    next_actions: texts(c.next_actions.filter((a) => !isSuppressed(a, doneActions, 'added'))),
    parked_actions: texts(c.parked_actions.filter((a) => !isSuppressed(a, doneActions, 'added'))),
    open_questions: texts(c.open_questions),
    decisions: texts(c.decisions.filter((d) => !hidden.has(itemKey(d)))),
  };
}

/** session.json as written: the known keys first, two-space indent, final newline. */
function sessionFileText(session) {
  const ordered = {};
  for (const key of KNOWN_TOP_LEVEL) if (has(session, key)) ordered[key] = session[key];
  return `${JSON.stringify({ ...ordered, ...session }, null, 2)}\n`;
}

// ===========================================================================
// 5. Writer operations (spec 4.1, 5.3). Each is (session, ctx, args) ->
//    result, mutating the session it is given; ctx = {now, machineId,
//    label, caps, log}. `applyOp` adds the session-level stamps.
// ===========================================================================

function requireText(args, name = 'text') {
  const value = args[name];
  if (typeof value !== 'string' || trim(value) === '') throw new InvalidInput(`\`${name}\` must be a non-empty string`);
  return value;
}

/** Items in `list` with identity `key` removed; returns [kept, removed]. */
function without(list, key) {
  return [list.filter((item) => itemKey(item) !== key), list.filter((item) => itemKey(item) === key)];
}

/** Oldest first by `field`, ties by identity: the rotation order of a capped list. */
function chronological(items, field) {
  return [...items].sort((a, b) => sortKey(a[field]) - sortKey(b[field]) || compareText(itemKey(a), itemKey(b)));
}

/** Split off the oldest items (by `field`) beyond `cap`; returns [kept in order, evicted]. */
function rotateOldest(list, field, cap) {
  const evicted = chronological(list, field).slice(0, Math.max(0, list.length - cap));
  return [list.filter((item) => !evicted.includes(item)), evicted];
}

/** Record the temporal tombstone {text, done_at}: one per identity, newest kept (5.3.2). */
function recordTombstone(list, text, now, cap) {
  const [kept] = without(list, textHash(text));
  return rotateOldest([...kept, { text, done_at: now }], 'done_at', cap)[0];
}

function addGoal(session, ctx, args) {
  const text = requireText(args);
  const c = session.current;
  const key = textHash(text);
  if (c.goals.some((g) => itemKey(g) === key)) return {}; // already a goal
  const goal = { text, machine_id: ctx.machineId, set_on: ctx.now };
  c.goals.push(goal);
  // AMB-GOAL-OVERFLOW: goals have no parking list; the oldest rotates out.
  const [kept, dropped] = rotateOldest(c.goals, 'set_on', ctx.caps.goals);
  for (const g of dropped) ctx.log(`goal cap reached, rotated out: ${JSON.stringify(g.text)}`);
  c.goals = kept;
  return goal;
}

/**
 * Completing removes the item AND records a tombstone (5.3.2); removal
 * alone would be undone by the next merge with a stale replica. Completing
 * what is not here still records the tombstone, so the completion reaches
 * replicas that do hold it.
 */
function completeIn(session, ctx, text, lists, tombstones, dateField) {
  const key = textHash(text);
  const found = [];
  for (const name of lists) {
    const [kept, removed] = without(session.current[name], key);
    session.current[name] = kept;
    found.push(...removed);
  }
  if (!found.length) ctx.log(`not open here, tombstone recorded anyway: ${JSON.stringify(text)}`);
  const recorded = found.length ? found[0].text : text;
  // A copy dated after the clock: done_at takes its date, so the tombstone
  // suppresses the very copy it completes on the next merge (AMB-FUTURE-DATED).
  let doneAt = ctx.now;
  for (const item of found) {
    if (sortKey(item[dateField]) > sortKey(doneAt)) doneAt = item[dateField];
  }
  session.current[tombstones] = recordTombstone(session.current[tombstones], recorded, doneAt, ctx.caps[tombstones]);
  return { text: recorded, done_at: doneAt };
}

function completeGoal(session, ctx, args) {
  return completeIn(session, ctx, requireText(args), ['goals'], 'completed_goals', 'set_on');
}

function addNextAction(session, ctx, args) {
  const text = requireText(args);
  const c = session.current;
  const key = textHash(text);
  if (c.next_actions.some((a) => itemKey(a) === key)) return {}; // already live
  const [parkedRest, parked] = without(c.parked_actions, key);
  c.parked_actions = parkedRest;
  let action = { text, machine_id: ctx.machineId, added: ctx.now };
  if (parked.length) {
    // A parked identity returns to live rather than being duplicated (4.1),
    // with a fresh `added` so the next merge does not park it again (AMB-READD-PARKED).
    const { parked_at: _, ...rest } = parked[0];
    action = { ...rest, added: ctx.now };
  }
  c.next_actions.push(action);
  // Overflow is parked, never dropped (4.1, v0.1.2): the oldest by `added`
  // moves to parked_actions with `parked_at`, `added` unchanged.
  const [live, overflow] = rotateOldest(c.next_actions, 'added', ctx.caps.next_actions);
  c.next_actions = live;
  c.parked_actions.push(...overflow.map((a) => ({ ...a, parked_at: ctx.now })));
  // Only the parked list's own cap may drop an action, and the spec says to log it.
  const [kept, dropped] = rotateOldest(c.parked_actions, 'added', ctx.caps.parked_actions);
  for (const a of dropped) ctx.log(`parked list full, dropped: ${JSON.stringify(a.text)}`);
  c.parked_actions = kept;
  return action;
}

function completeNextAction(session, ctx, args) {
  // A parked action is still open, so it is completable too (4.1).
  return completeIn(session, ctx, requireText(args), ['next_actions', 'parked_actions'], 'completed_actions', 'added');
}

function addQuestion(session, ctx, args) {
  const text = requireText(args);
  const c = session.current;
  const key = textHash(text);
  if (c.open_questions.some((q) => itemKey(q) === key)) return {};
  const question = { text, machine_id: ctx.machineId, asked: ctx.now };
  c.open_questions.push(question);
  c.open_questions = rotateOldest(c.open_questions, 'asked', ctx.caps.open_questions)[0];
  return question;
}

/** Cap the visible decisions; hidden ones are tombstones, never evicted (AMB-TOMBSTONE-CAPS). */
function capDecisions(decisions, cap) {
  const [visible] = rotateOldest(decisions.filter((d) => d.hidden !== true), 'date', cap);
  return decisions.filter((d) => d.hidden === true || visible.includes(d));
}

function addDecision(session, ctx, args) {
  const text = requireText(args);
  for (const name of ['why', 'rejected']) {
    if (args[name] !== undefined && args[name] !== null && typeof args[name] !== 'string') throw new InvalidInput(`\`${name}\` must be a string`);
  }
  const c = session.current;
  const [others, existing] = without(c.decisions, textHash(text));
  if (existing.some((d) => d.hidden === true)) {
    // Hidden is monotonic (5.3.1): adding the text again does not revive it,
    // and a purged tombstone must not get its words back.
    ctx.log(`decision is hidden and stays hidden: ${JSON.stringify(text)}`);
    return {};
  }
  const decision = { ...(existing[0] || {}), text, machine_id: ctx.machineId, date: ctx.now };
  if (typeof args.why === 'string') decision.why = args.why;
  if (typeof args.rejected === 'string') decision.rejected = args.rejected;
  c.decisions = capDecisions([...others, decision], ctx.caps.decisions);
  return decision;
}

function hideDecision(session, ctx, args) {
  const text = requireText(args);
  if (args.purge !== undefined && typeof args.purge !== 'boolean') throw new InvalidInput('`purge` must be a boolean');
  const key = textHash(text);
  const [others, found] = without(session.current.decisions, key);
  if (!found.length) throw new InvalidInput(`no decision with this text to hide: ${JSON.stringify(text)}`); // AMB-HIDE-MISSING
  // Keep the strongest copy; tombstoning leaves its `date` alone (5.3.1).
  const rank = (d) => [d.hidden === true ? 1 : 0, sortKey(d.date)];
  const best = found.reduce((a, b) => (rank(b)[0] - rank(a)[0] || rank(b)[1] - rank(a)[1]) > 0 ? b : a);
  const earlier = found.find((d) => d.hidden === true && has(d, 'hidden_at'));
  let tombstone = { ...best, hidden: true, hidden_at: earlier ? earlier.hidden_at : ctx.now };
  if (args.purge === true) {
    // Purge = hide, and the words leave the file: only the hash remains.
    const { why: _w, rejected: _r, ...rest } = tombstone;
    tombstone = { ...rest, text: PURGED_TEXT, text_hash: key };
  }
  session.current.decisions = [...others, tombstone];
  return tombstone;
}

function recordSession(session, ctx, args) {
  const summary = requireText(args, 'summary');
  const sessionId = args.session_id;
  if (sessionId !== undefined && sessionId !== null && typeof sessionId !== 'string') throw new InvalidInput('`session_id` must be a string');
  const row = { date: ctx.now, machine_id: ctx.machineId, summary };
  let history = session.history;
  if (typeof sessionId === 'string') {
    // The same session updates its own row in place of adding one (4.1, v0.1.2).
    row.session_id = sessionId;
    history = history.filter((r) => r.session_id !== sessionId);
  }
  history = history.filter((r) => !(r.date === row.date && r.machine_id === row.machine_id && r.summary === row.summary));
  // Newest first by date whatever order the file kept (stable for equal dates), then capped (4.1).
  session.history = [row, ...history].sort((a, b) => sortKey(b.date) - sortKey(a.date)).slice(0, ctx.caps.history);
  return row;
}

const SESSION_OPS = {
  add_goal: addGoal,
  complete_goal: completeGoal,
  add_next_action: addNextAction,
  complete_next_action: completeNextAction,
  add_question: addQuestion,
  add_decision: addDecision,
  hide_decision: hideDecision,
  record_session: recordSession,
};

/** Apply one writer op, then stamp the session: created_at, updated_at, this machine's last_seen. */
function applyOp(session, op, ctx, args) {
  const result = SESSION_OPS[op](session, ctx, args);
  const machine = { ...(session.machines[ctx.machineId] || {}) };
  if (machine.label === undefined) machine.label = ctx.label;
  machine.last_seen = ctx.now;
  session.machines[ctx.machineId] = machine;
  if (typeof session.created_at !== 'string') session.created_at = ctx.now;
  session.updated_at = ctx.now;
  return result;
}

// ===========================================================================
// 6. Merge (spec 5). Pure and deterministic: every winner is picked by a
//    total order over the copies, never by side, so merge(A, B) and
//    merge(B, A) agree (5.4); only unknown keys prefer the local copy.
// ===========================================================================

/** Canonical JSON (sorted keys, no whitespace), for tie-breaks (AMB-TIE). */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value).sort(compareText).map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The newest-wins order (5.2): date (epoch when missing), then canonical JSON (AMB-TIE). */
function byDate(field) {
  return (a, b) => sortKey(a[field]) - sortKey(b[field]) || compareText(canonical(a), canonical(b));
}

/**
 * For decisions the purged form outranks any plain copy, whatever the dates
 * (5.3.1); of copies with equal dates a hidden one wins (AMB-TIE), so that a
 * winner that inherits the tombstone keeps its rank when merged again (5.4).
 */
function decisionOrder(a, b) {
  return (isPurged(a) ? 1 : 0) - (isPurged(b) ? 1 : 0)
    || sortKey(a.date) - sortKey(b.date)
    || (a.hidden === true ? 1 : 0) - (b.hidden === true ? 1 : 0)
    || compareText(canonical(a), canonical(b));
}

/** Union by identity, one winner per identity: the greatest copy under `order` (5.2 rules 1, 2). */
function newestPerIdentity(items, order) {
  const winners = new Map();
  for (const item of items) {
    const key = itemKey(item);
    if (!winners.has(key) || order(item, winners.get(key)) > 0) winners.set(key, item);
  }
  return winners;
}

/** Keep the newest `cap` by `field`, oldest first. */
function oldestOut(items, field, cap) {
  const ordered = chronological(items, field);
  return ordered.slice(Math.max(0, ordered.length - cap));
}

/** Union, newest done_at per identity, capped newest-first (5.3.2 rule 1). */
function mergeTombstones(copies, cap) {
  return oldestOut([...newestPerIdentity(copies, byDate('done_at')).values()], 'done_at', cap);
}

/**
 * Decisions: newest wins, the purged form wins outright, and hidden is
 * sticky: if any copy is hidden the winner is too, with that copy's
 * hidden_at (5.3.1, AMB-HIDDEN-AT). The visible cap never evicts a tombstone.
 */
function mergeDecisions(copies, cap) {
  const winners = newestPerIdentity(copies, decisionOrder);
  const hiddenCopies = newestPerIdentity(copies.filter((d) => d.hidden === true), decisionOrder);
  const merged = [...winners].map(([key, winner]) => {
    if (winner.hidden === true || !hiddenCopies.has(key)) return winner;
    const tombstone = hiddenCopies.get(key);
    return has(tombstone, 'hidden_at') ? { ...winner, hidden: true, hidden_at: tombstone.hidden_at } : { ...winner, hidden: true };
  });
  const hidden = merged.filter((d) => d.hidden === true);
  const visible = oldestOut(merged.filter((d) => d.hidden !== true), 'date', cap);
  return chronological([...hidden, ...visible], 'date');
}

/**
 * Next actions (5.2 rule 1, v0.1.2): pool live and parked of both sides,
 * newest wins per identity, apply the tombstones, then the newest N by
 * `added` are live and the rest parked. A parked action keeps a parked_at:
 * its own, else the newest of any copy's, else the later updated_at of the
 * two replicas (AMB-PARKED-AT: a merge reads no clock).
 */
function mergeActions(L, R, tombstones, caps, fallbackParkedAt) {
  const pool = [...L.next_actions, ...L.parked_actions, ...R.next_actions, ...R.parked_actions];
  const parkedSince = new Map();
  for (const item of pool) {
    if (typeof item.parked_at !== 'string') continue;
    const held = parkedSince.get(itemKey(item));
    if (held === undefined || sortKey(item.parked_at) > sortKey(held)) parkedSince.set(itemKey(item), item.parked_at);
  }
  const done = tombstoneIndex(tombstones);
  const open = [...newestPerIdentity(pool, byDate('added')).values()].filter((a) => !isSuppressed(a, done, 'added'));
  const newestFirst = chronological(open, 'added').reverse();
  const live = newestFirst.slice(0, caps.next_actions).map(({ parked_at: _, ...action }) => action);
  const parked = newestFirst.slice(caps.next_actions, caps.next_actions + caps.parked_actions).map((action) => {
    const stamp = action.parked_at || parkedSince.get(itemKey(action)) || fallbackParkedAt;
    return stamp === undefined ? action : { ...action, parked_at: stamp };
  });
  return [chronological(live, 'added'), chronological(parked, 'added')];
}

/** Keys this code does not know pass through a merge, the local copy winning (5.4, v0.1.2). */
function unknownKeys(local, remote, known) {
  const out = {};
  for (const [key, value] of Object.entries(remote)) if (!known.includes(key)) out[key] = value;
  for (const [key, value] of Object.entries(local)) if (!known.includes(key)) out[key] = value;
  return out;
}

/** created_at takes the earlier, updated_at the later (5.2 rule 5); only parseable values compete (AMB-CREATED-AT). */
function pickStamp(values, latest) {
  const strings = values.filter((v) => typeof v === 'string');
  const parsed = strings.filter((v) => parseDate(v) !== null);
  if (!parsed.length) return strings[0];
  const order = (a, b) => sortKey(a) - sortKey(b) || compareText(a, b);
  return parsed.reduce((a, b) => ((order(b, a) > 0) === latest ? b : a));
}

/** Merge two loaded (sanitized) sessions into a new one (spec 5). */
function mergeSessions(local, remote, caps = DEFAULT_CAPS) {
  const L = local.current;
  const R = remote.current;
  const completedActions = mergeTombstones([...L.completed_actions, ...R.completed_actions], caps.completed_actions);
  const completedGoals = mergeTombstones([...L.completed_goals, ...R.completed_goals], caps.completed_goals);
  const updatedAt = pickStamp([local.updated_at, remote.updated_at], true);
  const [nextActions, parkedActions] = mergeActions(L, R, completedActions, caps, updatedAt);
  const doneGoals = tombstoneIndex(completedGoals);
  const goals = [...newestPerIdentity([...L.goals, ...R.goals], byDate('set_on')).values()]
    .filter((g) => !isSuppressed(g, doneGoals, 'set_on'));
  const questions = newestPerIdentity([...L.open_questions, ...R.open_questions], byDate('asked'));

  const merged = { version: KNOWN_VERSION };
  const createdAt = pickStamp([local.created_at, remote.created_at], false);
  if (createdAt !== undefined) merged.created_at = createdAt;
  if (updatedAt !== undefined) merged.updated_at = updatedAt;
  merged.machines = mergeMachines(local.machines, remote.machines);
  merged.current = {
    goals: oldestOut(goals, 'set_on', caps.goals),
    next_actions: nextActions,
    parked_actions: parkedActions,
    completed_actions: completedActions,
    completed_goals: completedGoals,
    open_questions: oldestOut([...questions.values()], 'asked', caps.open_questions),
    decisions: mergeDecisions([...L.decisions, ...R.decisions], caps.decisions),
    ...unknownKeys(L, R, KNOWN_LISTS),
  };
  merged.history = mergeHistory(local.history, remote.history, caps.history);
  return { ...merged, ...unknownKeys(local, remote, KNOWN_TOP_LEVEL) };
}

/** `machines`: per UUID, the entry with the newer last_seen (5.2 rule 3). */
function mergeMachines(local, remote) {
  const out = { ...local };
  for (const [uuid, info] of Object.entries(remote)) {
    if (!has(out, uuid) || byDate('last_seen')(info, out[uuid]) > 0) out[uuid] = info;
  }
  return out;
}

/** A history row's key: session_id when present, else (date, machine_id, summary) (AMB-HISTORY-KEY). */
function historyKey(row) {
  if (typeof row.session_id === 'string' && row.session_id !== '') return canonical(['session_id', row.session_id]);
  const field = (name) => (row[name] === undefined ? null : row[name]);
  return canonical(['row', field('date'), field('machine_id'), field('summary')]);
}

/** Union, deduplicate (the newer row of one key wins), newest first, cap (5.2 rule 4). */
function mergeHistory(local, remote, cap) {
  const order = byDate('date');
  const rows = new Map();
  for (const row of [...local, ...remote]) {
    const key = historyKey(row);
    if (!rows.has(key) || order(row, rows.get(key)) > 0) rows.set(key, row);
  }
  return [...rows.values()].sort((a, b) => order(b, a)).slice(0, cap);
}

/**
 * Merge two session.json texts, as the protocol's merge_sessions gives
 * them. A side that is absent, unparseable or of a newer version
 * contributes nothing (spec 6: a degraded read must not contribute a misreading).
 */
function mergeSessionTexts(localText, remoteText, caps = DEFAULT_CAPS) {
  const [local, remote] = [localText, remoteText].map((text) => {
    const loaded = loadSessionText(text);
    return loaded.status === 'ok' ? loaded.session : emptySession();
  });
  return mergeSessions(local, remote, caps);
}

// ===========================================================================
// 7. Store I/O: the only part that touches the disk or the clock
// ===========================================================================

const MEMORY_DIR = 'memory';
const SESSION_FILE = 'session.json';
const LOCK_FILE = 'session.json.lock';
const LOCK_STALE_MS = 5000; // a lock file this old, of no live process here, was left by a crash
const LOCK_DEAD_MS = 30000; // a lock file this old is stale whoever wrote it
const LOCK_WAIT_MS = 8000;  // then answer an internal error, before the runner's 10 s timeout

function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function readIfExists(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') return null;
    throw error;
  }
}

/** Write a file atomically (spec 4.1): a temp file beside it, fsync, rename over. */
function writeAtomic(file, text) {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
  try {
    const fd = fs.openSync(temp, 'wx');
    try {
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

/** Whether a lock file was left behind: its process is gone, or it is very old. */
function lockIsStale(lock) {
  let stat;
  let content;
  try {
    stat = fs.statSync(lock);
    content = fs.readFileSync(lock, 'utf8');
  } catch (_) {
    return false; // gone already: the next attempt will simply take it
  }
  const age = Date.now() - stat.mtimeMs;
  const [pid, host] = content.split(' ');
  if (host === os.hostname() && /^\d+$/.test(pid || '')) {
    try {
      process.kill(Number(pid), 0);
    } catch (error) {
      if (error.code === 'ESRCH') return true; // its writer died
    }
    return age > LOCK_DEAD_MS;
  }
  return age > LOCK_STALE_MS; // written elsewhere or unreadable: go by age
}

/**
 * Remove a stale lock. Two waiters may both judge it stale, and the slower
 * one must not then delete the lock the faster one has just taken, so the
 * judging and removing happen under a second O_EXCL file, `<lock>.break`.
 */
function breakStaleLock(lock) {
  const breaker = `${lock}.break`;
  try {
    fs.closeSync(fs.openSync(breaker, 'wx'));
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
    try {
      if (Date.now() - fs.statSync(breaker).mtimeMs > LOCK_STALE_MS) fs.rmSync(breaker, { force: true });
    } catch (_) { /* gone: fine */ }
    return;
  }
  try {
    if (lockIsStale(lock)) fs.rmSync(lock, { force: true });
  } finally {
    fs.rmSync(breaker, { force: true });
  }
}

/**
 * Run fn holding the store's writer lock: `session.json.lock`, created with
 * O_EXCL so exactly one process has it. The whole read -> mutate -> write
 * cycle runs inside (spec 4.1: locking only the write lets two writers read
 * the same stale snapshot). Waiters retry with a short random back-off.
 */
function withStoreLock(store, fn) {
  fs.mkdirSync(store, { recursive: true });
  const lock = path.join(store, LOCK_FILE);
  const started = Date.now();
  for (let attempt = 0; ; attempt += 1) {
    try {
      const fd = fs.openSync(lock, 'wx');
      try {
        fs.writeSync(fd, `${process.pid} ${os.hostname()} ${new Date().toISOString()}\n`);
      } finally {
        fs.closeSync(fd);
      }
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    if (lockIsStale(lock)) { breakStaleLock(lock); continue; }
    if (Date.now() - started > LOCK_WAIT_MS) throw new Error(`timed out waiting for ${lock}`);
    sleepSync(2 + Math.floor(Math.random() * (5 + Math.min(attempt, 25))));
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** This machine's stable UUID, kept under $HOME (spec 4.1: labels may change, UUIDs must not). */
function machineId() {
  const file = path.join(os.homedir(), '.memoir-mini', 'machine-id');
  const known = readIfExists(file);
  if (known && known.trim()) return known.trim();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const id = crypto.randomUUID();
  try {
    fs.writeFileSync(file, `${id}\n`, { flag: 'wx' });
    return id;
  } catch (error) {
    if (error.code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim(); // another process won the race
    throw error;
  }
}

function checkDir(dir, name = 'store') {
  if (typeof dir !== 'string' || !path.isAbsolute(dir)) throw new InvalidInput(`\`${name}\` must be an absolute path`);
  return dir;
}

/** The store's entry files, `memory/*.md`, sorted by name. */
function entryNames(store) {
  try {
    return fs.readdirSync(path.join(store, MEMORY_DIR), { withFileTypes: true })
      .filter((d) => d.isFile() && d.name.endsWith('.md') && !d.name.startsWith('.')).map((d) => d.name).sort();
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
}

/** What a reader of the store presents (protocol read_store). Never writes, not even a quarantine copy. */
// The date field an entry's temporal tombstone (done_at) is compared with (spec 5.3.2).
const TEMPORAL_DATE_FIELDS = { goal: 'set_on', next_action: 'added' };

/**
 * Whether a reader renders an entry as live (spec 5.3, 8; the protocol's
 * entry `live`, extension E15): not a hidden decision, nor a goal or next
 * action whose done_at is not earlier than its set_on / added.
 */
function isLive(entry) {
  if (entry.type === 'decision') return entry.fields.hidden !== true;
  const dateField = TEMPORAL_DATE_FIELDS[entry.type];
  if (dateField === undefined || !has(entry.fields, 'done_at')) return true;
  return sortKey(entry.fields[dateField]) > sortKey(entry.fields.done_at);
}

function readStore(store) {
  checkDir(store);
  const entries = entryNames(store).map((name) => {
    const { legacy: _, ...entry } = readEntry(name.slice(0, -3), fs.readFileSync(path.join(store, MEMORY_DIR, name), 'utf8'));
    return { ...entry, live: isLive(entry) };
  });
  const loaded = loadSessionText(readIfExists(path.join(store, SESSION_FILE)));
  const session = { status: loaded.status, live: render(loaded.session) };
  if (loaded.reason) session.reason = loaded.reason;
  return { entries, session };
}

/** Copy a file beside itself before anything replaces it (spec 4.1, 6). */
function quarantine(file, now) {
  const base = `${file}.quarantine-${now.replace(/[^0-9A-Za-z]/g, '')}`;
  let target = base;
  for (let n = 1; fs.existsSync(target); n += 1) target = `${base}-${n}`;
  writeAtomic(target, fs.readFileSync(file));
  return target;
}

/**
 * One writer op on `<store>/session.json` as a locked read-mutate-write
 * cycle. A newer-version file is never written over (spec 6: read-only);
 * an unparseable one is first copied to a quarantine file, then replaced.
 */
function applySessionOp(store, op, args, options = {}) {
  checkDir(store);
  const caps = options.caps || DEFAULT_CAPS;
  const log = options.log || ((line) => process.stderr.write(`${line}\n`));
  const file = path.join(store, SESSION_FILE);
  return withStoreLock(store, () => {
    const now = new Date().toISOString();
    const loaded = loadSessionText(readIfExists(file));
    if (loaded.reason === 'newer-version') throw new InvalidInput('session.json is of a newer version than this writer knows: read-only (spec 6)');
    if (loaded.status === 'degraded') log(`quarantined unreadable session.json as ${path.basename(quarantine(file, now))}`);
    const ctx = { now, machineId: machineId(), label: os.hostname(), caps, log };
    const result = applyOp(loaded.session, op, ctx, args);
    writeAtomic(file, sessionFileText(loaded.session));
    return result;
  });
}

function entryPath(store, link) {
  checkDir(store);
  if (typeof link !== 'string' || !/^[^/\\\x00]+$/.test(link) || link.startsWith('.') || link.endsWith('.md')) {
    throw new InvalidInput(`not a link name (a file name without .md, no path separators): ${JSON.stringify(link)}`);
  }
  return path.join(store, MEMORY_DIR, `${link}.md`);
}

/**
 * Create an entry file in canonical form (spec 3), stamping the identity and
 * date fields a writer owes (spec 8): `created`, and per type `added` +
 * `machine_id`, `set_on` or `date`. Never overwrites an existing entry.
 */
function writeEntry(store, link, frontmatter, body) {
  const file = entryPath(store, link);
  if (!isObject(frontmatter) || typeof body !== 'string') throw new InvalidInput('`frontmatter` must be an object and `body` a string');
  const type = frontmatter.type;
  if (has(LEGACY_TYPES, type) || (isObject(frontmatter.metadata) && has(frontmatter.metadata, 'type'))) {
    throw new InvalidInput('writers must not emit legacy dialects for new entries (spec Appendix A)');
  }
  if (typeof type !== 'string' || typeof frontmatter.name !== 'string') throw new InvalidInput('an entry needs a string `type` and `name` (spec 3.2)');
  const now = new Date().toISOString();
  const fields = { ...frontmatter };
  const stamps = { next_action: ['added', 'machine_id'], goal: ['set_on'], decision: ['date'] }[type] || [];
  for (const field of stamps) if (!has(fields, field)) fields[field] = field === 'machine_id' ? machineId() : now;
  if (!has(fields, 'created')) fields.created = now;
  const text = serializeFrontmatter(fields) + body;
  withStoreLock(store, () => {
    if (fs.existsSync(file)) throw new InvalidInput(`entry already exists: ${link}`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeAtomic(file, text);
  });
  return {};
}

/**
 * Change frontmatter keys of an existing entry by lines (editFrontmatter).
 * `updated` is stamped unless the caller sets or unsets it, so the edit wins
 * the next store merge (AMB-ENTRY-UPDATED).
 */
function updateEntry(store, link, set, unset) {
  const file = entryPath(store, link);
  if (!isObject(set) || !Array.isArray(unset) || !unset.every((k) => typeof k === 'string')) {
    throw new InvalidInput('`set` must be an object and `unset` a list of keys');
  }
  withStoreLock(store, () => {
    const bytes = (() => {
      try {
        return fs.readFileSync(file);
      } catch (error) {
        if (error.code === 'ENOENT') throw new InvalidInput(`no such entry: ${link}`);
        throw error;
      }
    })();
    let text;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch (_) {
      throw new InvalidInput(`entry is not UTF-8, refusing to rewrite it: ${link}`);
    }
    // Spec 6: editing the keys of a newer schema would be interpreting it; read-only instead.
    if (readEntry(link, text).status === 'quarantined') throw new InvalidInput(`entry has a newer schema_version, read-only: ${link}`);
    const changes = { ...set };
    if (!has(changes, 'updated') && !unset.includes('updated')) changes.updated = new Date().toISOString();
    writeAtomic(file, editFrontmatter(text, changes, unset));
  });
  return {};
}

/**
 * Which copy of one entry file a store merge keeps (5.2, 5.3.2,
 * AMB-ENTRY-TIE): a copy with `done_at` that completes every copy (none
 * added or set after it) wins; else the newest `updated` (else `created`);
 * equal dates go to the greater bytes.
 */
function newestEntry(copies) {
  const readings = copies.map((bytes) => ({ bytes, fields: readEntry('x', bytes.toString('utf8')).fields }));
  const opened = (f) => sortKey(has(f, 'added') ? f.added : f.set_on);
  const rank = ({ fields }) => [
    has(fields, 'done_at') && readings.every((other) => opened(other.fields) <= sortKey(fields.done_at)) ? 1 : 0,
    sortKey(fields.updated || fields.created),
  ];
  return readings.reduce((best, next) => {
    const [a, b] = [rank(best), rank(next)];
    const cmp = b[0] - a[0] || b[1] - a[1] || Buffer.compare(next.bytes, best.bytes);
    return cmp > 0 ? next : best;
  }).bytes;
}

/** Keep `bytes` beside `file` as a quarantine copy named by its digest (a merge reads no clock). */
function keepBeside(file, bytes) {
  writeAtomic(`${file}.quarantine-${crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 12)}`, bytes);
}

/**
 * The copies of one entry file in a store merge: what the merged store holds
 * at its path, and what it keeps beside it. A copy of a newer schema_version
 * contributes nothing to the choice (spec 6) but is never lost: it is kept
 * beside the chosen copy (or at the path when no copy is readable). This is
 * the other reading AMB-FORWARD-MERGE allows; the reference keeps it in place.
 */
function mergedEntry(versions) {
  const newer = (bytes) => readEntry('x', bytes.toString('utf8')).status === 'quarantined';
  const readable = versions.filter((bytes) => !newer(bytes));
  const unreadable = versions.filter(newer).sort(Buffer.compare).reverse();
  if (!readable.length) return { kept: unreadable[0], beside: unreadable.slice(1) };
  return { kept: newestEntry(readable), beside: unreadable };
}

/**
 * Merge two stores into the directory `out` (protocol merge_stores): entry
 * files unioned by link name (mergedEntry, newestEntry deciding a clash),
 * and the two session files merged. A degraded session contributes nothing;
 * its bytes are kept beside the merged one (spec 6: preserve the original).
 */
function mergeStores(local, remote, out, caps = DEFAULT_CAPS) {
  [['local', local], ['remote', remote], ['out', out]].forEach(([name, dir]) => checkDir(dir, name));
  fs.mkdirSync(path.join(out, MEMORY_DIR), { recursive: true });
  const copies = new Map();
  for (const store of [local, remote]) {
    for (const name of entryNames(store)) {
      if (!copies.has(name)) copies.set(name, []);
      copies.get(name).push(fs.readFileSync(path.join(store, MEMORY_DIR, name)));
    }
  }
  for (const [name, versions] of copies) {
    const file = path.join(out, MEMORY_DIR, name);
    const { kept, beside } = mergedEntry(versions);
    writeAtomic(file, kept);
    beside.forEach((bytes) => keepBeside(file, bytes));
  }
  const files = [local, remote].map((store) => path.join(store, SESSION_FILE)).filter((file) => fs.existsSync(file));
  if (files.length) {
    const texts = [local, remote].map((store) => readIfExists(path.join(store, SESSION_FILE)));
    const merged = path.join(out, SESSION_FILE);
    writeAtomic(merged, sessionFileText(mergeSessionTexts(...texts, caps)));
    for (const file of files) {
      if (loadSessionText(readIfExists(file)).status === 'degraded') keepBeside(merged, fs.readFileSync(file));
    }
  }
  return {};
}

module.exports = {
  DEFAULT_CAPS,
  KNOWN_VERSION,
  InvalidInput,
  SESSION_OPS,
  normalize,
  textHash,
  itemKey,
  parseDate,
  sortKey,
  parseEntryText,
  serializeFrontmatter,
  editFrontmatter,
  readEntry,
  loadSessionText,
  emptySession,
  render,
  applyOp,
  mergeSessions,
  mergeSessionTexts,
  readStore,
  applySessionOp,
  writeEntry,
  updateEntry,
  mergeStores,
};
