"""The explain page's style sheet and script, inlined into every page (nothing is fetched).

The script links what the page shows: a click on a kernel (its frame, its row, its bar on the
time line, a link) selects it: its nodes and rows are highlighted and the side pane shows its
details; a click on a node shows its op, shape, dtype, parameters, the line of code that
recorded it and the fusion decisions about it; a click on an edge or a decision row shows why
it fused or not. On a big page the drawing arrives band by band as the pane scrolls.
"""

STYLE = """
body { font: 13px/1.45 system-ui, sans-serif; margin: 0; color: #222; }
header { padding: 6px 16px; border-bottom: 1px solid #ddd; }
h1 { font-size: 18px; margin: 4px 0; } h2 { font-size: 16px; margin: 12px 0 6px; }
h3 { font-size: 14px; margin: 6px 0; } h4 { font-size: 13px; margin: 8px 0 2px; }
.summary { margin: 2px 0; color: #444; }
#main { display: grid; grid-template-columns: minmax(0, 1fr) minmax(320px, 34%); height: 74vh;
  border-bottom: 1px solid #ddd; }
#graph { overflow: auto; background: #fcfcfc; border-right: 1px solid #ddd; }
#detail { overflow: auto; padding: 6px 14px; }
section { padding: 4px 16px; }
table { border-collapse: collapse; }
th, td { text-align: left; padding: 2px 8px 2px 0; vertical-align: top; }
table.list td, table.list th { border-bottom: 1px solid #eee; padding-right: 14px; }
code, pre { font-family: ui-monospace, monospace; font-size: 12px; }
pre.code { background: #f4f6f7; padding: 4px 6px; white-space: pre-wrap; margin: 4px 0; }
.hint { color: #666; }
.dag g.node, .dag g.kernel, .dag .edge, .dag .stub, .tbar, tr.krow, tr.drow, a.ref {
  cursor: pointer; }
.dag g.node.hl rect { stroke: #e67e22; stroke-width: 3; }
.dag g.kernel.hl > rect { stroke-width: 3; }
.dag .edge.hl, .dag .edge.hl path { stroke: #e67e22; stroke-width: 4; }
tr.hl { background: #fdebd0; }
rect.tbar.hl { stroke: #000; stroke-width: 2; }
.verdict.split { color: #c0392b; font-weight: bold; } .verdict.fused { color: #1e8449; }
a.ref { color: #1a5276; text-decoration: underline dotted; }
.source { font-family: ui-monospace, monospace; }
"""

SCRIPT = r"""
(function () {
  "use strict";
  let parsed = null;  // NOTE: the data about every box is read at the first click
  const data = new Proxy({}, {get: (_, key) => {
    parsed = parsed || JSON.parse(document.getElementById("li-data").textContent);
    return parsed[key];
  }});
  const pane = document.getElementById("graph");
  const detail = document.getElementById("detail");
  const dag = document.getElementById("li-dag");
  const bandsElement = document.getElementById("li-bands");
  const bands = bandsElement ? JSON.parse(bandsElement.textContent) : null;
  const layers = ["frames", "edges", "splits", "boxes"].map(
    (name) => dag.querySelector(":scope > g." + name));
  const attached = new Set();
  const band = bands ? +bandsElement.dataset.band : 0;
  const tables = {};
  document.querySelectorAll("tbody.more").forEach((body) => {
    const {table, first, chunk} = body.dataset;
    tables[table] = {body, first: +first, chunk: +chunk, next: 0, chunks: null};
  });
  let kernelPages = null;
  let selected = null;

  function esc(text) {
    return String(text).replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;",
      '"': "&quot;"})[c]);
  }
  function scale() {
    const box = dag.viewBox.baseVal;
    return box && box.height ? dag.height.baseVal.value / box.height : 1;
  }
  function attachBands() {
    if (!bands) return;
    const s = scale(), top = pane.scrollTop / s, bottom = (pane.scrollTop + pane.clientHeight) / s;
    const first = Math.floor(top / band) - 1, last = Math.floor(bottom / band) + 1;
    let added = false;
    for (let b = Math.max(first, 0); b <= Math.min(last, bands.length - 1); b++) {
      if (attached.has(b)) continue;
      attached.add(b);
      bands[b].forEach((markup, i) => {
        if (markup) layers[i].insertAdjacentHTML("beforeend", markup);
      });
      added = true;
    }
    if (added) mark();
  }
  function addRows(name) {
    const table = tables[name];
    const start = table.first + table.next * table.chunk;
    if (name === "decisions") {  // NOTE: drawn from the data, not kept twice in the page
      if (start >= data.decisions.length) return false;
      const end = Math.min(start + table.chunk, data.decisions.length);
      const rows = [];
      for (let j = start; j < end; j++) rows.push(decisionRow(j));
      table.body.insertAdjacentHTML("beforeend", rows.join(""));
    } else {
      const chunks = () => JSON.parse(document.getElementById("li-rows-" + name).textContent);
      table.chunks = table.chunks || chunks();
      if (table.next >= table.chunks.length) return false;
      table.body.insertAdjacentHTML("beforeend", table.chunks[table.next]);
    }
    table.next += 1;
    return true;
  }
  function decisionRow(j) {
    const [fused, producer, consumer, reason] = data.decisions[j];
    const verdict = fused ? "fused" : "split";
    return `<tr class="drow" data-decision="${j}"><td class="verdict ${verdict}">${verdict}</td>` +
      `<td>${nodeName(producer, true)}</td><td>${nodeName(consumer, true)}</td>` +
      `<td>${esc(reason)}</td></tr>`;
  }
  function rowsUpTo(name, row) {
    const table = tables[name];
    while (table && table.first + table.body.rows.length <= row && addRows(name)) continue;
  }
  function rowsInView() {
    for (const name in tables) {
      const body = tables[name].body;
      while (body.getBoundingClientRect().bottom < window.innerHeight + 600 && addRows(name)) {
        mark();
      }
    }
  }
  function reveal(x, y) {
    const s = scale();
    pane.scrollTop = Math.max(y * s - pane.clientHeight / 3, 0);
    pane.scrollLeft = Math.max(x * s - pane.clientWidth / 3, 0);
    attachBands();
  }
  function targets() {
    if (!selected) return [];
    const [kind, i] = selected;
    if (kind === "kernel") {
      return document.querySelectorAll(`#li-dag [data-kernel="${i}"], ` +
        `tr.krow[data-kernel="${i}"], rect.tbar[data-kernel="${i}"]`);
    }
    if (kind === "node") return document.querySelectorAll(`#n${i}`);
    const d = data.decisions[i];
    return document.querySelectorAll(`[data-decision="${i}"], #n${d[1]}, #n${d[2]}`);
  }
  function mark() {
    document.querySelectorAll(".hl").forEach((e) => e.classList.remove("hl"));
    targets().forEach((e) => e.classList.add("hl"));
  }
  function nodeName(i, where) {
    if (i < 0) return "?";
    const n = data.nodes[i];
    const link = `<a class="ref" data-node="${i}">${esc(n[0])} ${esc(n[1])} ${esc(n[2])}</a>`;
    return where && n[4] >= 0 ? `${link} at ${esc(data.sources[n[4]][0])}` : link;
  }
  function kernelLink(k) {
    if (k < 0) return "none (kernels read it as a load)";
    return `<a class="ref" data-kernel="${k}">kernel ${k}</a>`;
  }
  function nodePage(i) {
    const [op, shape, dtype, params, line, kernel] = data.nodes[i];
    const [source, code] = line >= 0 ? data.sources[line] : ["", ""];
    const rows = [["shape", esc(shape)], ["dtype", esc(dtype)], ["kernel", kernelLink(kernel)]];
    if (params) rows.push(["params", `<code>${esc(params)}</code>`]);
    rows.push(["recorded at", `<span class="source">${esc(source || "?")}</span>`]);
    let html = `<h3>node: ${esc(op)}</h3><table class="facts">` +
      rows.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join("") + "</table>";
    if (code) html += `<pre class="code">${esc(code)}</pre>`;
    const about = [];
    data.decisions.forEach((d, j) => { if (d[1] === i || d[2] === i) about.push(j); });
    if (about.length) {
      html += "<h4>fusion decisions</h4><ul>" + about.map(decisionItem).join("") + "</ul>";
    }
    return html;
  }
  function decisionItem(j) {
    const [fused, producer, consumer, reason] = data.decisions[j];
    return `<li><a class="ref" data-decision="${j}">${fused ? "fused" : "split"}</a>: ` +
      `${nodeName(producer)} &rarr; ${nodeName(consumer)}: ${esc(reason)}</li>`;
  }
  function decisionPage(j) {
    const [fused, producer, consumer, reason] = data.decisions[j];
    const verdict = fused ? "fused" : "split";
    return `<h3 class="verdict ${verdict}">${verdict}</h3><p>${nodeName(producer)} &rarr; ` +
      `${nodeName(consumer)}</p><p class="reason">why: ${esc(reason)}</p>`;
  }
  function kernelPage(k) {
    kernelPages = kernelPages || JSON.parse(document.getElementById("li-kernels").textContent);
    return kernelPages[k];
  }
  function select(kind, i, travel) {
    selected = [kind, i];
    if (kind === "kernel") rowsUpTo("kernels", i);
    if (kind === "decision") rowsUpTo("decisions", i);
    if (kind === "kernel") detail.innerHTML = kernelPage(i);
    else if (kind === "node") detail.innerHTML = nodePage(i);
    else detail.innerHTML = decisionPage(i);
    if (travel) {
      const node = kind === "node" ? i : kind === "decision" ? data.decisions[i][1] :
        data.nodes.findIndex((n) => n[5] === i);
      if (node >= 0) reveal(data.nodes[node][6], data.nodes[node][7]);
    }
    mark();
  }
  document.addEventListener("click", (event) => {
    const hit = event.target.closest("[data-node], [data-decision], [data-kernel]");
    if (!hit) return;
    const travel = !pane.contains(hit) || hit.classList.contains("stub");
    if (hit.dataset.node !== undefined) select("node", +hit.dataset.node, travel);
    else if (hit.dataset.decision !== undefined) select("decision", +hit.dataset.decision, travel);
    else if (+hit.dataset.kernel >= 0) select("kernel", +hit.dataset.kernel, travel);
  });
  pane.addEventListener("scroll", attachBands, {passive: true});
  window.addEventListener("scroll", rowsInView, {passive: true});
  attachBands();
  rowsInView();
})();
"""
