// How Obsidian Tasks reads a vault's task lines, for tests/contract/test_markdown_contract.py.
//
// Reads one JSON document on stdin: {"notes": [{path, items: [{line, raw, task}]}],
// "globalFilter": "", "globalQuery": ""}, where `items` are the lines Obsidian's metadata cache
// flags as tasks (list items with a checkbox, as CommonMark finds them) and `raw` is the
// whole line. Writes {"tasks": [...]}: every task Tasks makes of them (the global filter
// applied), with its status type, description, block link, due date, priority and
// recurrence, and `listed`: whether the global query's file filters keep it.
//
// The Tasks plugin is not on the npm registry, so its parsing is ported here, line for line,
// from its source (obsidian-tasks-group/obsidian-tasks at cc0fce3, 2026-08-21, version 8.3.0):
// src/Task/TaskRegularExpressions.ts (taskRegex, blockLinkRegex, hashTags),
// src/Task/Task.ts (fromLine, extractTaskComponents), src/Config/GlobalFilter.ts (includedIn),
// src/Statuses/StatusRegistry.ts and Status.ts (the four default statuses; an unknown symbol
// is TODO), src/TaskSerializer/DefaultTaskSerializer.ts (deserialize: fields read from the end
// of the line, in any order, until none matches), src/Query/Filter/TextField.ts with
// PathField, FolderField, FilenameField (via TasksFile) and the Substring/Regex matchers.
'use strict';

const indentationRegex = /^([\s\t>]*)/;
const listMarkerRegex = /([-*+]|[0-9]+[.)])/;
const checkboxRegex = /\[(.)\]/u;
const afterCheckboxRegex = / *(.*)/u;
const taskRegex = new RegExp(
  indentationRegex.source + listMarkerRegex.source + ' +' + checkboxRegex.source +
    afterCheckboxRegex.source,
  'u',
);
const blockLinkRegex = / \^[a-zA-Z0-9-]+$/u;
const hashTags = /(^|\s)#[^ !@#$%^&*(),.?":{}|<>]+/g;
const hashTagsFromEnd = new RegExp(hashTags.source + '$');

const STATUS_TYPES = { ' ': 'TODO', '/': 'IN_PROGRESS', x: 'DONE', '-': 'CANCELLED' };

const taskIdRegex = /[a-zA-Z0-9-_]+/;
const taskIdSequenceRegex = new RegExp(
  taskIdRegex.source + '( *, *' + taskIdRegex.source + ' *)*',
);

function fieldRegex(symbols, valueRegexString) {
  let source = symbols + '\uFE0F?';
  if (valueRegexString !== '') source += ' *' + valueRegexString;
  source += '$';
  return new RegExp(source);
}
function dateFieldRegex(symbols) {
  return fieldRegex(symbols, '(\\d{4}-\\d{2}-\\d{2})');
}

const R = {
  priorityRegex: fieldRegex('(🔺|⏫|🔼|🔽|⏬)', ''),
  startDateRegex: dateFieldRegex('🛫'),
  createdDateRegex: dateFieldRegex('➕'),
  scheduledDateRegex: dateFieldRegex('(?:⏳|⌛)'),
  dueDateRegex: dateFieldRegex('(?:📅|📆|🗓)'),
  doneDateRegex: dateFieldRegex('✅'),
  cancelledDateRegex: dateFieldRegex('❌'),
  recurrenceRegex: fieldRegex('🔁', '([a-zA-Z0-9, !]+)'),
  onCompletionRegex: fieldRegex('🏁', '([a-zA-Z]+)'),
  dependsOnRegex: fieldRegex('⛔', '(' + taskIdSequenceRegex.source + ')'),
  idRegex: fieldRegex('🆔', '(' + taskIdRegex.source + ')'),
};
const PRIORITIES = { '🔺': 'highest', '⏫': 'high', '🔼': 'medium', '🔽': 'low', '⏬': 'lowest' };

function extractField(state, regex, setter) {
  const match = state.line.match(regex);
  if (match !== null) {
    setter(match);
    state.line = state.line.replace(regex, '').trim();
    state.matched = true;
  }
}

// DefaultTaskSerializer.deserialize, the fields this contract reads (dates are kept as text;
// Tasks makes them moments, and drops a date that is not one).
function deserialize(line) {
  const state = { line, matched: false };
  const out = { priority: '', due: null, scheduled: null, start: null, recurrence: '' };
  let trailingTags = '';
  let runs = 0;
  do {
    state.matched = false;
    extractField(state, R.priorityRegex, (m) => (out.priority = PRIORITIES[m[1]]));
    extractField(state, R.doneDateRegex, () => {});
    extractField(state, R.cancelledDateRegex, () => {});
    extractField(state, R.dueDateRegex, (m) => (out.due = m[1]));
    extractField(state, R.scheduledDateRegex, (m) => (out.scheduled = m[1]));
    extractField(state, R.startDateRegex, (m) => (out.start = m[1]));
    extractField(state, R.createdDateRegex, () => {});
    extractField(state, R.recurrenceRegex, (m) => (out.recurrence = m[1].trim()));
    extractField(state, R.onCompletionRegex, () => {});
    extractField(state, hashTagsFromEnd, (m) => {
      const tagName = m[0].trim();
      trailingTags = trailingTags.length > 0 ? [tagName, trailingTags].join(' ') : tagName;
    });
    extractField(state, R.idRegex, () => {});
    extractField(state, R.dependsOnRegex, () => {});
    runs++;
  } while (state.matched && runs <= 20);
  if (trailingTags.length > 0) state.line += (state.line.length > 0 ? ' ' : '') + trailingTags;
  out.description = state.line;
  return out;
}

// Task.fromLine: null when the line is not a task, or lacks the global filter.
function fromLine(raw, globalFilter) {
  const m = raw.match(taskRegex);
  if (m === null) return null;
  const symbol = m[3];
  let body = m[4].trim();
  const blockLinkMatch = body.match(blockLinkRegex);
  const blockLink = blockLinkMatch !== null ? blockLinkMatch[0] : '';
  if (blockLink !== '') body = body.replace(blockLinkRegex, '').trim();
  if (!body.includes(globalFilter)) return null; // GlobalFilter.includedIn ('' is in all)
  const statusType = STATUS_TYPES[symbol] || 'TODO'; // Status.createUnknownStatus
  return { symbol, statusType, blockLink, ...deserialize(body) };
}

// -- the global query's file filters (TextField with PathField, FolderField, FilenameField) ----

const FILTER = /^(path|folder|filename) (includes|does not include|regex matches|regex does not match) (.*)/i;

function fileValue(field, path) {
  const filename = path.split('/').pop();
  if (field === 'path') return path;
  if (field === 'filename') return filename;
  const folder = path.substring(0, path.lastIndexOf(filename)); // TasksFile.folder
  return folder === '' ? '/' : folder;
}

function filtersOf(query) {
  const filters = [];
  for (const raw of query.split('\n')) {
    const m = raw.trim().match(FILTER);
    if (m === null) continue;
    const field = m[1].toLowerCase();
    const operator = m[2].toLowerCase();
    const value = m[3];
    let matches;
    if (operator.includes('include')) {
      matches = (text) => text.toLocaleLowerCase().includes(value.toLocaleLowerCase());
    } else {
      const q = value.match(/^\/(.+)\/([^/]*)$/); // RegexMatcher.validateAndConstruct
      if (q === null) throw new Error(`Tasks refuses the global query line: ${raw}`);
      const regex = new RegExp(q[1], q[2]);
      matches = (text) => text.match(regex) !== null;
    }
    const negate = operator.match(/not/) !== null;
    filters.push((path) => {
      const hit = matches(fileValue(field, path));
      return negate ? !hit : hit;
    });
  }
  return filters;
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const doc = JSON.parse(input);
  const filters = filtersOf(doc.globalQuery || '');
  const tasks = [];
  for (const note of doc.notes) {
    for (const item of note.items) {
      const task = fromLine(item.raw, doc.globalFilter || '');
      if (task === null) continue;
      const listed = filters.every((keep) => keep(note.path));
      tasks.push({ path: note.path, line: item.line, listed, ...task });
    }
  }
  process.stdout.write(JSON.stringify({ tasks }));
});
