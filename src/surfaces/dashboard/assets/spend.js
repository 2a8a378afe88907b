// What a run or a stage cost, as the run page shows it: the `cost` view of the API
// (reported and estimated kept apart) as one short text, `~` marking any estimate, with a
// tooltip that says which part is which.

function usd(value) {
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`;
}

/** `$0.1200` (reported), `~$0.1200` (an estimate in it), `?` (no price known), '–' (no model ran). */
export function costText(cost) {
  if (!cost) return '–';
  if (cost.reported_usd === null && cost.estimated_usd === null) return '?';
  const estimated = cost.estimated_usd !== null || cost.unpriced_turns > 0;
  return `${estimated ? '~' : ''}${usd(cost.total_usd)}`;
}

/** The tooltip: each figure with where it came from. */
export function costTitle(cost) {
  if (!cost) return 'No model turns';
  const parts = [];
  if (cost.reported_usd !== null) parts.push(`${usd(cost.reported_usd)} reported by the provider or CLI`);
  if (cost.estimated_usd !== null) parts.push(`${usd(cost.estimated_usd)} estimated from the price table`);
  if (cost.unpriced_turns > 0) parts.push(`${cost.unpriced_turns} turn${cost.unpriced_turns === 1 ? '' : 's'} with no known price`);
  return parts.join('; ');
}
