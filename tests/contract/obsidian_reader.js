// How Obsidian and Dataview read a vault's notes, for tests/contract/test_markdown_contract.py.
//
// Reads one JSON document on stdin: {"notes": [{path, yaml, intended, items, lines}]} where
// `yaml` is a note's raw frontmatter (or null), `intended` what vaultbrain meant each property
// to be (dates tagged {"$date": "…"}), `items` the note's list items ({line, text, task}) and
// `lines` its other lines ({line, text}), as CommonMark (markdown-it-py) finds them.
// Writes one JSON document: per note, the type of every property as js-yaml reads it, as
// Dataview types js-yaml's value, and as Dataview types the intended value; and the inline
// fields Dataview reads on each list item and line.
//
// js-yaml and obsidian-dataview come from the npm registry (.ci/node-deps). Dataview's typing
// of frontmatter is its own code: EXPRESSION.date / duration / embedLink / inlineField from
// its package, called as its `parseFrontmatter` and `parseInlineValue` call them
// (src/data-import/markdown-file.ts). Its line scanning (`extractInlineFields`,
// `extractFullLineField` and the task emoji regexes of src/data-import/inline-field.ts) is not
// in the npm package's bundle, so it is ported below, line for line, from Dataview's source
// (blacksmithgu/obsidian-dataview at 5ad0994, 2025-04-08).
'use strict';

const path = require('path');
const Module = require('module');

const modules = process.env.VAULTBRAIN_NODE_MODULES;
// `obsidian` is Obsidian's API, present only inside the app: an empty stand-in (the parsers
// used here never touch it).
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'obsidian') return __filename;
  return resolve.call(this, request, ...rest);
};
const yaml = require(path.join(modules, 'js-yaml'));
const dataview = require(path.join(modules, 'obsidian-dataview'));
const EXPRESSION = dataview.EXPRESSION;
if (require.main !== module) return; // loaded as the `obsidian` stand-in

// -- types ----------------------------------------------------------------------------------

function jsType(value) {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return value.map(jsType);
  if (value instanceof Date) return 'date';
  if (typeof value === 'object') return 'object';
  return typeof value; // string | number | boolean
}

function dvType(value) {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return value.map(dvType);
  if (value && value.dvDate) return 'date';
  if (value && value.isLuxonDateTime) return 'date';
  if (value && value.isLuxonDuration) return 'duration';
  if (value && typeof value === 'object' && 'path' in value && 'embed' in value) return 'link';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

// Dataview's parseFrontmatter (src/data-import/markdown-file.ts).
function parseFrontmatter(value) {
  if (value == null) return null;
  if (typeof value === 'object') {
    if (Array.isArray(value)) return value.map(parseFrontmatter);
    if (value instanceof Date) return { dvDate: true }; // DateTime.fromJSDate(value)
    const result = {};
    for (const key in value) result[key] = parseFrontmatter(value[key]);
    return result;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const date = EXPRESSION.date.parse(value);
    if (date.status) return date.value;
    const duration = EXPRESSION.duration.parse(value);
    if (duration.status) return duration.value;
    const link = EXPRESSION.embedLink.parse(value);
    if (link.status) return link.value;
    return value;
  }
  return null;
}

function intendedValue(value) {
  if (value && typeof value === 'object' && !Array.isArray(value) && '$date' in value) {
    return new Date(value.$date);
  }
  if (Array.isArray(value)) return value.map(intendedValue);
  return value;
}

// -- inline fields (a port of src/data-import/inline-field.ts) --------------------------------

const WRAPPERS = { '[': ']', '(': ')' };

function findClosing(line, start, open, close) {
  let nesting = 0;
  let escaped = false;
  for (let index = start; index < line.length; index++) {
    const char = line.charAt(index);
    if (char === '\\') {
      escaped = !escaped;
      continue;
    }
    if (escaped) {
      escaped = false;
      continue;
    }
    if (char === open) nesting++;
    else if (char === close) nesting--;
    if (nesting < 0) return { value: line.substring(start, index).trim(), endIndex: index + 1 };
    escaped = false;
  }
  return undefined;
}

function findSeparator(line, start) {
  const sep = line.indexOf('::', start);
  if (sep < 0) return undefined;
  return { key: line.substring(start, sep).trim(), valueIndex: sep + 2 };
}

function findSpecificInlineField(line, start) {
  const open = line.charAt(start);
  const key = findSeparator(line, start + 1);
  if (key === undefined) return undefined;
  for (const sep of Object.keys(WRAPPERS).concat(Object.values(WRAPPERS))) {
    if (key.key.includes(sep)) return undefined;
  }
  const value = findClosing(line, key.valueIndex, open, WRAPPERS[open]);
  if (value === undefined) return undefined;
  return { key: key.key, value: value.value, start, end: value.endIndex, wrapping: open };
}

const EMOJI_REGEXES = [
  { regex: /\u{2795}\s*(\d{4}-\d{2}-\d{2})/u, key: 'created' },
  { regex: /\u{1F6EB}\s*(\d{4}-\d{2}-\d{2})/u, key: 'start' },
  { regex: /[\u{23F3}\u{231B}]\s*(\d{4}-\d{2}-\d{2})/u, key: 'scheduled' },
  { regex: /(?:\u{1F4C5}|\u{1F4C6}|\u{1F5D3}\u{FE0F}?)\s*(\d{4}-\d{2}-\d{2})/u, key: 'due' },
  { regex: /\u{2705}\s*(\d{4}-\d{2}-\d{2})/u, key: 'completion' },
];

function extractSpecialTaskFields(line) {
  const results = [];
  for (const { regex, key } of EMOJI_REGEXES) {
    const match = regex.exec(line);
    if (!match) continue;
    results.push({
      key,
      value: match[1],
      start: match.index,
      end: match.index + match[0].length,
      wrapping: 'emoji-shorthand',
    });
  }
  return results;
}

function extractInlineFields(line, includeTaskFields) {
  let fields = [];
  for (const wrapper of Object.keys(WRAPPERS)) {
    let foundIndex = line.indexOf(wrapper);
    while (foundIndex >= 0) {
      const parsed = findSpecificInlineField(line, foundIndex);
      if (!parsed) {
        foundIndex = line.indexOf(wrapper, foundIndex + 1);
        continue;
      }
      fields.push(parsed);
      foundIndex = line.indexOf(wrapper, parsed.end);
    }
  }
  if (includeTaskFields) fields = fields.concat(extractSpecialTaskFields(line));
  fields.sort((a, b) => a.start - b.start);
  const filtered = [];
  for (let i = 0; i < fields.length; i++) {
    if (i === 0 || filtered[filtered.length - 1].end < fields[i].start) filtered.push(fields[i]);
  }
  return filtered;
}

// FULL_LINE_KEY_PARSER: leading non-word characters, then letters, digits, \w, spaces, _ / -
// or emoji, then trailing markup (_ * ~ `), the whole key.
const FULL_LINE_KEY =
  /^[^0-9\w\p{Letter}]*((?:\p{Extended_Pictographic}|[0-9\p{Letter}\w\s_/-])*)[_*~`]*$/u;

function extractFullLineField(text) {
  const sep = findSeparator(text, 0);
  if (!sep) return undefined;
  const key = FULL_LINE_KEY.exec(sep.key);
  if (!key) return undefined;
  return { key: key[1], value: text.substring(sep.valueIndex).trim() };
}

// parseInlineValue (src/data-import/inline-field.ts)
function parseInlineValue(value) {
  if (value.trim() === '') return null;
  const inline = EXPRESSION.inlineField.parse(value);
  return inline.status ? inline.value : value;
}

function fieldsOf(found) {
  const out = {};
  for (const f of found) out[f.key] = { type: dvType(parseInlineValue(f.value)), value: f.value };
  return out;
}

// -- one note -----------------------------------------------------------------------------------

function readNote(note) {
  const out = { path: note.path, yaml_error: null, jsyaml: {}, dataview: {}, intended: {} };
  if (note.yaml !== null) {
    try {
      const data = yaml.load(note.yaml) || {};
      for (const [key, value] of Object.entries(data)) {
        out.jsyaml[key] = jsType(value);
        out.dataview[key] = dvType(parseFrontmatter(value));
      }
    } catch (err) {
      out.yaml_error = String(err.message || err).split('\n')[0];
    }
  }
  for (const [key, value] of Object.entries(note.intended || {})) {
    out.intended[key] = dvType(parseFrontmatter(intendedValue(value)));
  }
  // parseLists: every list item's inline fields, emoji shorthands included; a full-line
  // field only on an item that is not a task and has no other field.
  out.items = note.items.map((item) => {
    let found = extractInlineFields(item.text, true);
    if (item.task === null && found.length === 0) {
      const full = extractFullLineField(item.text);
      if (full) found = [full];
    }
    return { line: item.line, task: item.task, text: item.text, fields: fieldsOf(found) };
  });
  // parseMarkdown: every other line with a `::`, without the emoji shorthands.
  out.lines = [];
  for (const entry of note.lines) {
    if (entry.text.length > 32768 || !entry.text.includes('::')) continue;
    const line = entry.text.trim();
    let found = extractInlineFields(line, false);
    if (found.length === 0) {
      const full = extractFullLineField(line);
      if (full) found = [full];
    }
    if (found.length) out.lines.push({ line: entry.line, text: line, fields: fieldsOf(found) });
  }
  return out;
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const doc = JSON.parse(input);
  process.stdout.write(JSON.stringify({ notes: doc.notes.map(readNote) }));
});
