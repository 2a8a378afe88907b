// Panels of the run page that features add beside the built-in ones (a workspace diff,
// sandbox rules, cost, …): a module calls `addRunPanel` once when it loads (imported from
// app.js), and the run page draws every panel after its stages, again on each change.

const panels = [];

/**
 * Adds a panel to every run page. `render(detail, context)` answers an element (or null to
 * show nothing) from the run's detail (`GET /runs/<id>`); `context.events` holds the events
 * read so far and `context.signal` aborts when the person leaves the page. It is called on
 * every change of the run, so it should keep its own state where redrawing would lose it.
 *
 * @example addRunPanel({ id: 'cost', render: (detail) => h('section', { class: 'card' }, `Tokens: ${detail.tokens.total}`) })
 */
export function addRunPanel(panel) {
  if (panels.some((each) => each.id === panel.id)) return;
  panels.push(panel);
}

/** The registered panels, in the order they were added. */
export function runPanels() {
  return panels;
}
