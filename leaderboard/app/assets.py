"""The app's CSS and the few lines of browser JavaScript (sorting, the URL state).

Gradio's Dataframe sorts display strings and hides sorting in a menu, so the board is an HTML table
and a header click sorts it here: by each cell's ``data-v`` number (text where there is no number),
missing values last in both directions, each table body on its own (ranked models never mix with
unranked ones). The benchmark and the tab live in the URL query (``?benchmark=...&tab=...``), so a
link restores the view.
"""

SORT_JS = """
element.addEventListener('click', (event) => {
  const th = event.target.closest('th[data-col]');
  if (!th || !element.contains(th)) return;
  const table = th.closest('table');
  const col = Number(th.dataset.col);
  const dir = th.getAttribute('aria-sort') === 'descending' ? 'ascending' : 'descending';
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


# The query the page was opened with, kept before any event can rewrite the URL (a tab's select event
# fires when the page mounts): the page load restores the benchmark and the tab from it.
HEAD = "<script>window.leaderboardQuery = window.location.search;</script>"
RESTORE_JS = (
    "(...args) => { const q = new URLSearchParams(window.leaderboardQuery ?? window.location.search); "
    "args[0] = q.get('benchmark') || ''; args[1] = q.get('tab') || ''; args[2] = window.innerWidth; return args; }"
)

TABLE_CSS = """
.lb-scroll { overflow: auto; max-width: 100%; max-height: 78vh; border: 1px solid var(--border-color-primary);
  border-radius: 6px; }
table.lb { border-collapse: separate; border-spacing: 0; font-size: 14px; width: max-content; min-width: 100%; }
table.lb th, table.lb td { padding: 4px 8px; border-bottom: 1px solid var(--border-color-primary);
  text-align: right; vertical-align: top; background: var(--background-fill-primary); }
table.lb th { position: sticky; top: 0; z-index: 2; cursor: pointer; user-select: none; vertical-align: bottom;
  font-weight: 600; min-width: 5.5em; max-width: 11em; white-space: normal; }
table.lb th .h { display: block; }
table.lb th .m, .m { display: block; font-weight: 400; font-size: 11px; color: var(--body-text-color-subdued); }
table.lb th[aria-sort="descending"] .h::after { content: " ▼"; }
table.lb th[aria-sort="ascending"] .h::after { content: " ▲"; }
table.lb .c-rank { position: sticky; left: 0; z-index: 1; width: 3.6em; min-width: 3.6em; max-width: 3.6em;
  text-align: left; white-space: nowrap; }
table.lb .c-model { position: sticky; left: 3.6em; z-index: 1; width: 15em; min-width: 15em; max-width: 15em;
  text-align: left; overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
  border-right: 1px solid var(--border-color-primary); }
table.lb .c-name { position: sticky; left: 0; z-index: 1; text-align: left; white-space: nowrap; max-width: 18em;
  overflow: hidden; text-overflow: ellipsis; border-right: 1px solid var(--border-color-primary); }
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
table.lb a { color: inherit; text-decoration: underline dotted; }
.view-title { margin: 12px 0 2px 0; font-size: 16px; font-weight: 600; }
.empty { padding: 2em 1em; text-align: center; font-size: 16px; color: var(--body-text-color-subdued); }
.note, .notes { font-size: 12px; color: var(--body-text-color-subdued); }
.notes ul { margin: 0; padding-left: 1.2em; }
@media (max-width: 640px) {
  table.lb { font-size: 13px; }
  table.lb th, table.lb td { padding: 3px 5px; }
  table.lb .c-rank { width: 3.4em; min-width: 3.4em; max-width: 3.4em; }
  table.lb .c-model { left: 3.4em; width: 8.2em; min-width: 8.2em; max-width: 8.2em; }
  table.lb .c-name { max-width: 9em; }
  table.lb th { min-width: 4.6em; }
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
@media (max-width: 640px) {
  .gradio-container, .gradio-container .main, .gradio-container .wrap { padding-left: 4px !important;
    padding-right: 4px !important; }
  #title h1 { font-size: 18px; }
}
"""
