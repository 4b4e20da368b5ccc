/** The console's only script (served by the bridge at /console/static/live.js): the in-progress table, live over SSE. */
export const LIVE_SCRIPT = `(() => {
  const target = document.getElementById('live');
  if (!target || !window.EventSource) return;
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  const source = new EventSource('/console/events');
  source.addEventListener('progress', (event) => {
    const list = JSON.parse(event.data);
    const rows = list.map((p) => {
      const pct = p.percent;
      return '<tr data-job="' + esc(p.job) + '"><td>' + esc(p.job) + '</td><td>' + esc(p.file) + '</td><td class="num">' + p.rows + '</td><td class="num">' +
        (p.estimatedTotal === null ? '' : '~' + p.estimatedTotal) + '</td><td><span class="bar"><span style="width:' + pct + '%"></span></span> ' + pct +
        '%</td><td class="num">' + p.rate + '/s</td><td>' + esc(p.startedAt.slice(0, 19).replace('T', ' ')) + '</td></tr>';
    });
    target.querySelector('tbody').innerHTML = rows.length ? rows.join('') : '<tr><td colspan="7" class="muted">no file in progress</td></tr>';
    target.dataset.updated = String(Date.now());
  });
})();
`;
