"""The app's CSS and browser JavaScript, in one place: the page's, the tables' (sorting, paging, the URL state) and
each tab's own (the Leaderboard's task choices, the model page, side by side).

Gradio's Dataframe sorts display strings and hides sorting in a menu, so tables are HTML. The
benchmark board is sorted and paged on the server, over ALL its rows: a header click or a page
button writes the request into small state boxes (Gradio textboxes hidden by CSS) and clicks a
hidden button, whose event re-renders the table; the other tables (views, provenance, comparison) are small and sort in
the page, by each cell's ``data-v`` number (text where there is no number), missing values last.
The full view state (benchmark, tab, filters, search, sort, page, picked models, the Overall set,
the compared models) lives in the URL query, so a link restores the view.
"""

SORT_JS = """
const toBox = (id, value) => {
  const box = document.querySelector('#' + id + ' textarea, #' + id + ' input');
  if (!box) return;
  box.value = value;
  box.dispatchEvent(new Event('input', { bubbles: true }));
};
// The boxes hold the request; a click on the (hidden) button sends it (a script's input event does not).
const send = (id = 'board-go') => setTimeout(() => {
  const go = document.querySelector('#' + id);
  if (go) go.click();
}, 0);
const toUrl = (entries) => {
  const url = new URL(window.location.href);
  for (const [k, v] of entries) {
    if (v === '' || v === null) url.searchParams.delete(k); else url.searchParams.set(k, v);
  }
  window.history.replaceState(null, '', url);
};
element.addEventListener('click', (event) => {
  const pageButton = event.target.closest('.pager[data-box] button[data-page]');
  if (pageButton && element.contains(pageButton)) {
    const page = pageButton.dataset.page, pager = pageButton.closest('.pager');
    if (pager.dataset.box === 'page-state') toUrl([['p', page === '1' ? '' : page]]);  // the board's page: in the URL
    toBox(pager.dataset.box, page);
    send(pager.dataset.go);
    return;
  }
  const th = event.target.closest('th[data-col]');
  if (!th || !element.contains(th)) return;
  const table = th.closest('table');
  const dir = th.getAttribute('aria-sort') === 'descending' ? 'ascending' : 'descending';
  if (table.dataset.serverSort !== undefined && th.dataset.key) {
    const value = th.dataset.key + '.' + (dir === 'ascending' ? 'asc' : 'desc');
    toUrl([['sort', value], ['p', '']]);
    toBox('sort-state', value);
    toBox('page-state', '1');
    send();
    return;
  }
  const col = Number(th.dataset.col);
  table.querySelectorAll('th[data-col]').forEach((h) => h.removeAttribute('aria-sort'));
  th.setAttribute('aria-sort', dir);
  const key = (row) => {
    const raw = row.cells[col] ? row.cells[col].dataset.v : undefined;
    if (raw === undefined || raw === '') return null;
    const number = Number(raw);
    return Number.isNaN(number) ? raw : number;
  };
  for (const body of table.tBodies) {
    const rows = Array.from(body.rows).filter((r) => !r.classList.contains('section'));
    rows.sort((a, b) => {
      const x = key(a), y = key(b);
      if (x === null || y === null) return x === y ? 0 : (x === null ? 1 : -1);
      const c = (typeof x === 'number' && typeof y === 'number') ? x - y : String(x).localeCompare(String(y));
      return dir === 'ascending' ? c : -c;
    });
    rows.forEach((r) => body.appendChild(r));
  }
});
"""


def url_js(parameter: str, value: str | None = None) -> str:
    """JS run before an event: write the first input (or a constant) into the URL; pass inputs through."""
    source = "args[0]" if value is None else repr(value)
    return (
        "(...args) => { const url = new URL(window.location.href); "
        f"url.searchParams.set({parameter!r}, {source}); window.history.replaceState(null, '', url); "
        "return args.length === 1 ? args[0] : args; }"
    )


def url_state_js(
    parameters: dict[int, str],
    defaults: dict[str, object] | None = None,
    reset: tuple[str, ...] = (),
    reset_on_change: bool = False,
) -> str:
    """JS run before an event: write the inputs at the given positions into the URL (lists joined by ``|``).

    A value equal to its default, or empty, is removed from the URL (a shared link stays short);
    ``reset`` names parameters the event clears (a new filter starts again at page 1); with
    ``reset_on_change`` only when the written parameters changed the URL (a dropdown fires its input
    event again when it loses focus: the view it shows is unchanged, and so is its sort and page).
    """
    import json

    mapping = json.dumps({str(k): v for k, v in parameters.items()})
    fallback = json.dumps(defaults or {})
    cleared = json.dumps(list(reset))
    return (
        "(...args) => { const url = new URL(window.location.href); const before = url.search; "
        f"const names = {mapping}; const defaults = {fallback}; "
        "for (const [i, name] of Object.entries(names)) { let v = args[Number(i)]; "
        "const same = JSON.stringify(v) === JSON.stringify(defaults[name]); "
        "if (Array.isArray(v)) v = v.join('|'); "
        "if (v === null || v === undefined || v === '' || v === false || same) url.searchParams.delete(name); "
        "else url.searchParams.set(name, v === true ? '1' : String(v)); } "
        f"if ({json.dumps(not reset_on_change)} || url.search !== before) "
        f"for (const name of {cleared}) url.searchParams.delete(name); "
        "window.history.replaceState(null, '', url); return args.length === 1 ? args[0] : args; }"
    )


# The file a click on "Download CSV" wrote, downloaded by the browser (as a DownloadButton does with its value).
DOWNLOAD_JS = (
    "(file) => { if (file && file.url) { const a = document.createElement('a'); a.href = file.url; "
    "a.download = file.orig_name || 'leaderboard.csv'; document.body.appendChild(a); a.click(); a.remove(); } }"
)


# The query the page was opened with, kept before any event can rewrite the URL (a tab's select event
# fires when the page mounts): the page load restores the whole view from it (``url_state.parse``).
# Gradio prefixes every rule of ``css`` inside an @media block with its ``.contain`` element: the page's
# own margins (outside it) are set here, in the head, as written.
PHONE_PAGE = (
    "<style>@media (max-width: 640px) { .gradio-container .main.fillable { padding-left: 4px !important; "
    "padding-right: 4px !important; } }</style>"
)
HEAD = "<script>window.leaderboardQuery = window.location.search;</script>" + PHONE_PAGE

# Gradio loads its chart module (Vega, about 700 kB of JavaScript) when a page first shows a chart: a
# third of a second added to the first chart a reader opens. Once the page has drawn its first view and
# is idle, this loads it, so that Gradio's own import finds it loaded. Where Gradio's build names the
# module otherwise, nothing is preloaded (``chart_preload`` returns "") and charts load as before.
_PRELOAD_JS = """<script>(() => {
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 500));
  const until = Date.now() + 600000;  // a bound in time: a slow server's first view may take many idle periods
  const load = () => {
    const index = document.querySelector('script[type="module"][src*="/assets/index-"]');
    const drawn = document.querySelector('#board table, #home, .view-plot, #size-plot canvas, #compare table');
    if (index && drawn) { import(new URL('./%s', index.src).href).catch(() => {}); return; }
    if (Date.now() < until) idle(load, { timeout: 2000 });
  };
  idle(load, { timeout: 2000 });
})();</script>"""


def chart_preload() -> str:
    """The script that preloads Gradio's chart module (``_PRELOAD_JS``), for the installed Gradio's build."""
    from pathlib import Path

    import gradio

    found = sorted((Path(gradio.__file__).parent / "templates" / "frontend" / "assets").glob("AltairPlot-*.js"))
    return _PRELOAD_JS % found[0].name if len(found) == 1 else ""


RESTORE_JS = (
    "(...args) => { args[0] = window.leaderboardQuery ?? window.location.search; args[1] = window.innerWidth; "
    "return args; }"
)

TABLE_CSS = """
.lb-scroll { overflow: auto; max-width: 100%; max-height: 78vh; border: 1px solid var(--border-color-primary);
  border-radius: 6px; }
table.lb { border-collapse: separate; border-spacing: 0; font-size: 14px; width: max-content; min-width: 100%; }
table.lb th, table.lb td { padding: 4px 8px; border-bottom: 1px solid var(--border-color-primary);
  text-align: right; vertical-align: top; background: var(--background-fill-primary); }
table.lb th { position: sticky; top: 0; z-index: 2; cursor: pointer; user-select: none; vertical-align: bottom;
  font-weight: 600; min-width: 5.5em; max-width: 11em; white-space: normal; overflow-wrap: anywhere; }
table.lb th .h { display: block; }
table.lb th .m, .m { display: block; font-weight: 400; font-size: 11px; color: var(--body-text-color-subdued); }
table.lb th[aria-sort="descending"] .h::after { content: " ▼"; }
table.lb th[aria-sort="ascending"] .h::after { content: " ▲"; }
table.lb .c-rank { position: sticky; left: 0; z-index: 1; width: 3.6em; min-width: 3.6em; max-width: 3.6em;
  text-align: left; white-space: nowrap; }
/* names wrap (anywhere: a model id has no spaces), never cut: the whole name is read on a phone too */
table.lb .c-model { position: sticky; left: 3.6em; z-index: 1; width: 15em; min-width: 15em; max-width: 15em;
  text-align: left; white-space: normal; overflow-wrap: anywhere;
  border-right: 1px solid var(--border-color-primary); }
table.lb .c-name { position: sticky; left: 0; z-index: 1; text-align: left; white-space: normal; max-width: 18em;
  overflow-wrap: anywhere; border-right: 1px solid var(--border-color-primary); }
table.lb th.c-rank, table.lb th.c-model, table.lb th.c-name { z-index: 3; }
table.lb td.c-agg { background: var(--background-fill-secondary); }
table.lb .v { display: block; font-variant-numeric: tabular-nums; }
table.lb .ci { display: block; font-size: 11px; color: var(--body-text-color-subdued); white-space: nowrap; }
table.lb td.best .v, table.lb td.best { font-weight: 700; }
table.lb td.c-missing, table.lb td.c-reason { text-align: left; white-space: normal; min-width: 16em;
  max-width: 40em; }
table.lb .c-text, table.lb th.c-file, table.lb th.c-reason, table.lb th.c-missing { text-align: left; }
table.lb .c-text { white-space: nowrap; }
table.lb td.c-file { text-align: left; white-space: normal; word-break: break-all; min-width: 12em; }
table.lb tr.section td { text-align: left; font-weight: 600; font-size: 13px; white-space: normal;
  position: static; background: var(--background-fill-secondary); }
/* a tier's heading stays in view (wrapped to the screen) when the table scrolls sideways */
table.lb tr.section .section-text { position: sticky; left: 8px; display: inline-block;
  max-width: min(60em, calc(100vw - 100px)); white-space: normal; }
table.lb a { color: inherit; text-decoration: underline dotted; }
.view-title { margin: 12px 0 2px 0; font-size: 16px; font-weight: 600; }
.empty { padding: 2em 1em; text-align: center; font-size: 16px; color: var(--body-text-color-subdued); }
.note, .notes { font-size: 12px; color: var(--body-text-color-subdued); }
.notes ul { margin: 0; padding-left: 1.2em; }
table.lb td.heat { background-image: linear-gradient(rgba(46, 125, 219, var(--heat)),
  rgba(46, 125, 219, var(--heat))); }
table.lb td.heat .ci { color: var(--body-text-color); opacity: 0.8; }  /* readable on the colour scale */
table.lb .rev { font-size: 11px; color: var(--body-text-color-subdued); }
table.lb .c-model .rev { display: block; overflow-wrap: anywhere; }
table.lb tbody.reported td { font-style: italic; }
table.lb tbody.reported .src { display: block; font-size: 11px; font-style: normal;
  color: var(--body-text-color-subdued); overflow-wrap: anywhere; }
table.lb .src.attested { display: block; font-size: 11px; color: var(--body-text-color-subdued); }
table.lb .src.imported { display: block; font-size: 11px; color: var(--body-text-color-subdued);
  white-space: normal; }  /* wraps in a narrow column: "run by mteb" and † are always read whole */
table.lb tbody.reported .note { font-size: 11px; font-style: normal; white-space: normal; max-width: 28em;
  color: var(--body-text-color-subdued); }
table.lb tbody.reported .note summary { cursor: pointer; }
table.lb td.other-data { color: var(--body-text-color-subdued); font-style: italic; }
table.lb td.other-data .od { display: block; font-size: 11px; font-style: normal; white-space: nowrap; }
table.lb .src.dup { display: block; font-size: 11px; color: #b45309; white-space: normal; }
table.lb td.dup .v::after { content: " ⚠"; color: #b45309; }
table.lb .delta { display: block; font-size: 11px; font-style: normal; white-space: normal;
  color: var(--body-text-color-subdued); }
table.lb td.a-better { background: rgba(46, 160, 67, 0.18); }
table.lb td.b-better { background: rgba(218, 54, 51, 0.16); }
table.lb caption { caption-side: top; text-align: left; font-size: 12px; padding: 4px 8px;
  color: var(--body-text-color-subdued); }
.pager { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; font-size: 13px; margin: 6px 0; }
.pager button { border: 1px solid var(--border-color-primary); border-radius: 4px; padding: 2px 10px;
  background: var(--background-fill-secondary); cursor: pointer; }
.pager button[disabled] { opacity: 0.4; cursor: default; }
#home .home-cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(330px, 1fr)); gap: 10px; }
#home .home-card { border: 1px solid var(--border-color-primary); border-radius: 6px; padding: 6px 8px; }
#home .home-card h3 { margin: 0; font-size: 16px; }
/* fixed layout: the score column keeps its width and the model name wraps in the room left, never the score */
#home .home-card table.lb { width: 100%; min-width: 0; table-layout: fixed; }
#home .home-card table.lb td { position: static; border-bottom: none; padding: 2px 4px; }
#home .home-card table.lb .c-model { width: auto; max-width: none; min-width: 0; border-right: none; }
#home .home-card table.lb .c-model .name { display: block; overflow-wrap: anywhere; }
#home .home-card table.lb .c-model .src { display: block; overflow-wrap: anywhere; }
#home .home-card table.lb .c-rank { width: 2.6em; min-width: 0; max-width: none; }
#home .home-card table.lb .c-agg { width: 7em; }
#home .more { margin: 2px 0 0 0; font-size: 12px; }
#home .home-intro { margin: 0 0 6px 0; }
#home .home-empty { margin-top: 10px; font-size: 13px; }
#home details.home-empty summary { cursor: pointer; }
#home .home-empty ul { display: flex; flex-wrap: wrap; gap: 4px 16px; list-style: none; padding: 0; margin: 4px 0; }
@media (max-width: 640px) {
  table.lb { font-size: 13px; }
  table.lb th, table.lb td { padding: 3px 5px; }
  table.lb .c-rank { width: 3.4em; min-width: 3.4em; max-width: 3.4em; }
  table.lb .c-model { left: 3.4em; width: 8.2em; min-width: 8.2em; max-width: 8.2em; }
  table.lb .c-name { max-width: 9em; }
  table.lb th { min-width: 4.6em; }
  /* the caption wraps to the screen and stays in view, however wide the table scrolls */
  table.lb caption { position: sticky; left: 0; max-width: calc(100vw - 16px); }
  #home .home-cards { grid-template-columns: 1fr; }
}
"""

PAGE_CSS = """
.gradio-container { max-width: 100% !important; padding-top: 4px !important; }
#title h1 { font-size: 22px; margin: 0; }
#top { align-items: center; }
#status { font-size: 12px; color: var(--body-text-color-subdued); }
.summary { font-size: 13px; line-height: 1.35; }
.tag { font-size: 11px; padding: 1px 6px; border-radius: 8px; background: var(--background-fill-secondary);
  border: 1px solid var(--border-color-primary); }
.about pre.citation { white-space: pre-wrap; font-size: 12px; }
.about table.plain td, .about table.plain th { padding: 2px 8px; text-align: left; }
.about table.plain { display: block; overflow-x: auto; max-width: 100%; }
.view-title { margin: 12px 0 2px 0; font-size: 16px; }
.state-box { display: none !important; }
#board-cite { font-size: 13px; margin-top: 6px; }
#board-cite summary { cursor: pointer; font-weight: 600; }
#board-cite pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; max-height: 20em; overflow: auto;
  background: var(--background-fill-secondary); padding: 6px; }
#board-cite .mp-copy { border: 1px solid var(--border-color-primary); border-radius: 4px; padding: 2px 10px;
  margin: 4px 0; background: var(--background-fill-secondary); cursor: pointer; }
.note.warn { font-size: 13px; color: var(--body-text-color); border-left: 3px solid #d97706; padding: 2px 8px; }
#overall-set { margin-bottom: 4px; }
@media (max-width: 640px) {
  /* Gradio's 12 px HTML-block margins (and its 32 px page margins: PHONE_PAGE) cost a phone table columns */
  .html-container { padding-left: 2px !important; padding-right: 2px !important; }
  #title h1 { font-size: 18px; }
  .summary .desc { display: none; }  /* the first ranked score above the fold; About has the text */
  /* Overall's set: one line of checkboxes that scrolls sideways (15 benchmarks wrapped pushed the
     table below the fold); the summary names the chosen set. */
  #overall-set [data-testid="checkbox-group"], #overall-set .wrap { flex-wrap: nowrap !important;
    overflow-x: auto; }
  #overall-set label { flex-shrink: 0; white-space: nowrap; }
}
"""


# -- the Leaderboard tab -------------------------------------------------------------------------------------------

# The tasks' URL parameter: the ticked tasks, or none when every task is ticked (the benchmark's own ranking); a new
# choice starts again at page 1.
TASKS_JS = """(...args) => { const url = new URL(window.location.href); const v = args[%d] || [];
const all = document.querySelectorAll('#rank-tasks input[type=checkbox]').length;
if (!v.length || v.length === all) url.searchParams.delete('tasks'); else url.searchParams.set('tasks', v.join('|'));
url.searchParams.delete('p'); window.history.replaceState(null, '', url); return args; }"""


# -- the Model tab and the model pages' links ---------------------------------------------------------------------

MODEL_CSS = """
#model-page h2.mp-name { margin: 4px 0; font-size: 22px; word-break: break-word; }
#model-page .mp-top { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; margin-bottom: 8px; }
#model-page table.mp-facts { border-collapse: collapse; font-size: 14px; }
#model-page table.mp-facts th { text-align: left; font-weight: 600; padding: 2px 12px 2px 0; }
#model-page table.mp-facts td { padding: 2px 0; word-break: break-word; }
#model-page .mp-sw { display: flex; flex-wrap: wrap; gap: 16px; font-size: 14px; }
#model-page .mp-sw ul, #model-page .mp-sources ul { margin: 2px 0; padding-left: 1.2em; }
#model-page h3.mp-bench { margin: 14px 0 2px 0; font-size: 17px; }
#model-page .mp-rank { margin: 0 0 4px 0; font-size: 14px; }
#model-page .mp-aggregates { margin-bottom: 6px; }
#model-page table.mp-aggregates-table { width: auto; min-width: 0; }
#model-page table.mp-aggregates-table td .ci { display: block; font-size: 11px; white-space: normal; }
#model-page table.mp-aggregates-table td.mp-col { min-width: 7em; max-width: 12em; }
#model-page .ci { font-size: 12px; color: var(--body-text-color-subdued); }
#model-page table.mp-table td .ci { display: block; font-size: 11px; }
#model-page td.mp-col { white-space: normal; min-width: 9em; max-width: 16em; text-align: left; }
#model-page .mp-sources { font-size: 13px; margin-top: 4px; word-break: break-word; }
#model-page td.mp-leads { color: rgb(30, 130, 50); font-weight: 600; }
#model-page td.mp-behind { color: rgb(190, 50, 45); }
#model-page .mp-cite { font-size: 13px; margin-top: 4px; }
#model-page .mp-cite pre { white-space: pre-wrap; word-break: break-word; font-size: 12px; max-height: 16em;
  overflow: auto; background: var(--background-fill-secondary); padding: 6px; }
#model-page .mp-copy { border: 1px solid var(--border-color-primary); border-radius: 4px; padding: 2px 10px;
  margin: 4px 0; background: var(--background-fill-secondary); cursor: pointer; }
"""

# A click on a model's name (``a.to-model``, anywhere on the page) opens its page in place: the name is
# written into the URL, then the Model tab is opened (its select event reads the URL's model, ``FROM_URL_JS``)
# or, when it is open already, its hidden button is clicked. The link alone would load the page again: seconds
# of the browser starting the app. Ctrl/Cmd/Shift/middle clicks keep the link's own behaviour (a new tab).
# In the page's head: the tab's own components are not on the page before it is first opened.
MODEL_LINKS_HEAD = """<script>document.addEventListener('click', (event) => {
  const link = event.target.closest ? event.target.closest('a.to-model') : null;
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey || event.button !== 0) return;
  const name = new URL(link.href, window.location.href).searchParams.get('model');
  const tab = Array.from(document.querySelectorAll('[role=tab]')).find((b) => b.textContent.trim() === %s);
  if (name === null || !tab) return;
  event.preventDefault();
  const url = new URL(window.location.href);
  url.searchParams.set('tab', 'model');
  url.searchParams.set('model', name);
  window.history.replaceState(null, '', url);
  const go = document.querySelector('#model-go');
  if (tab.getAttribute('aria-selected') === 'true' && go) go.click(); else tab.click();
});</script>"""

# Before the Model tab's select and its button: the URL's model (set by a name clicked) in place of the picker's
# value, and the tab in the URL.
FROM_URL_JS = (
    "(pick) => { const url = new URL(window.location.href); url.searchParams.set('tab', 'model'); "
    "window.history.replaceState(null, '', url); const asked = url.searchParams.get('model'); "
    "return asked === null ? pick : asked; }"
)


# The copy button: the BibTeX beside it, to the clipboard (a page served over plain http may refuse it:
# the text is then selected, for the reader's own copy).
COPY_JS = """
element.addEventListener('click', (event) => {
  const button = event.target.closest('.mp-copy');
  if (!button || !element.contains(button)) return;
  const pre = button.parentElement.querySelector('pre');
  if (!pre) return;
  const done = () => { button.textContent = 'Copied'; button.dataset.copied = '1'; };
  const select = () => { const range = document.createRange(); range.selectNodeContents(pre);
    const chosen = window.getSelection(); chosen.removeAllRanges(); chosen.addRange(range);
    button.textContent = 'Selected: press Ctrl+C'; button.dataset.copied = 'selected'; };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(pre.textContent).then(done, select);
  } else { select(); }
});
"""


# -- the Side by side tab ------------------------------------------------------------------------------------------

SIDE_CSS = """
#side-tables .side-part h3 { margin: 12px 0 2px 0; font-size: 16px; }
#side-tables td .ci { display: block; font-size: 11px; color: var(--body-text-color-subdued); }
#side-tables th a { color: inherit; }
#side-tables td.c-text { white-space: normal; min-width: 8em; max-width: 14em; text-align: left; }
.side-note { margin: 4px 0; }
"""
