// Tandem topology page: plain JavaScript, no framework, no build step, no network access
// beyond the extender's own /topology API (clusters may be air-gapped).
'use strict';

(function () {
  const REFRESH_MS = 5000;
  const FETCH_TIMEOUT_MS = 15000;
  const MAX_LISTED = 200;
  const LARGE_CLUSTER = 1000;
  const LARGE_LIST_REFRESH_MS = 30000;
  const PAIR_SIZES = ['1', '2', '4', '8'];
  const LOCALITY = {
    PIX: 'same PCIe switch (at most one bridge between GPU and HCA)',
    PXB: 'several PCIe bridges, no host bridge',
    PHB: 'through a host bridge (same root complex)',
    NODE: 'across root complexes within one NUMA node',
    SYS: 'across NUMA nodes (socket interconnect)',
  };
  const LOCALITY_RANK = { PIX: 0, PXB: 1, PHB: 2, NODE: 3, SYS: 4 };
  const VENDORS = {
    '1000': 'Broadcom', '10b5': 'PLX', '8086': 'Intel', '1022': 'AMD', '1002': 'AMD',
    '10de': 'NVIDIA', '15b3': 'NVIDIA Mellanox', '1014': 'IBM', '1d0f': 'Amazon', '17db': 'HPE',
  };
  const KIND_LABEL = {
    CPU_DOMAIN: 'CPU domain', HOST_BRIDGE: 'Host bridge', ROOT_PORT: 'Root port',
    SWITCH_UPSTREAM: 'PCIe switch', SWITCH_DOWNSTREAM: 'Downstream port', BRIDGE: 'Bridge',
  };

  const state = {
    nodes: [],
    selected: null,
    detail: null,
    detailError: null,
    timer: null,
    inFlight: false,
    scrolled: false,
    listAt: 0,
    highlight: null,
  };

  const $ = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- DOM helpers

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === 'class') el.className = value;
      else if (key === 'text') el.textContent = value;
      else if (key === 'dataset') Object.assign(el.dataset, value);
      else if (key === 'style') el.style.cssText = value;
      else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
      else el.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }

  function replaceChildren(el, ...children) {
    el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  }

  const naturalCompare = new Intl.Collator('en', { numeric: true, sensitivity: 'base' }).compare;

  // ---------------------------------------------------------------- data access

  function apiUrl(path) {
    // The page lives at <prefix>/ui/; the API at <prefix>/topology/… (works behind a proxy prefix).
    return new URL('../' + path, location.href).toString();
  }

  async function fetchBody(path, asText) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), FETCH_TIMEOUT_MS);
    try {
      const response = await fetch(apiUrl(path), {
        signal: controller.signal,
        headers: { Accept: asText ? 'text/plain' : 'application/json' },
        cache: 'no-store',
      });
      if (!response.ok) {
        const body = (await response.text()).slice(0, 200);
        const error = new Error(`GET ${path}: HTTP ${response.status}${body ? ' – ' + body : ''}`);
        error.status = response.status;
        throw error;
      }
      return asText ? response.text() : response.json();
    } catch (e) {
      if (e.name === 'AbortError') throw new Error(`GET ${path}: no answer within ${FETCH_TIMEOUT_MS / 1000} s`);
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  const nodePath = (name) => 'topology/nodes/' + encodeURIComponent(name);

  // ---------------------------------------------------------------- formatting

  function hex4(value) {
    if (value === null || value === undefined || value === -1 || value === '') return null;
    const text = typeof value === 'number' ? value.toString(16) : String(value).replace(/^0x/i, '');
    return text.toLowerCase().padStart(4, '0');
  }

  function vendorText(item) {
    const vendor = hex4(item.vendor);
    if (!vendor) return '';
    const device = hex4(item.device);
    const name = VENDORS[vendor];
    return (name ? name + ' ' : '') + vendor + (device ? ':' + device : '');
  }

  function shortAddress(address) {
    return address ? String(address).replace(/^0000:/, '') : '';
  }

  function shortId(id) {
    if (!id) return '';
    return id.length > 20 ? id.slice(0, 12) + '…' + id.slice(-4) : id;
  }

  function shortRate(rate) {
    if (!rate) return '';
    const m = /([\d.]+)\s*Gb/i.exec(rate);
    return m ? m[1] + ' Gb/s' : rate;
  }

  function podKey(pod) {
    return pod ? (pod.uid || `${pod.namespace}/${pod.name}`) : '';
  }

  function podLabel(pod) {
    return pod ? `${pod.namespace ? pod.namespace + '/' : ''}${pod.name}` : '';
  }

  function podHue(pod) {
    let hash = 2166136261;
    for (const ch of podKey(pod)) hash = Math.imul(hash ^ ch.charCodeAt(0), 16777619) >>> 0;
    return Math.round((hash % 1000) * 137.508) % 360;
  }

  function numaText(list) {
    if (!list || list.length === 0) return 'unknown';
    const sorted = [...list].sort((a, b) => a - b);
    const contiguous = sorted.every((n, i) => i === 0 || n === sorted[i - 1] + 1);
    return sorted.length > 2 && contiguous ? `${sorted[0]}–${sorted[sorted.length - 1]}` : sorted.join(', ');
  }

  const count = (n) => Number(n).toLocaleString('en-US');

  function timeText(date) {
    return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  }

  function expiresText(expiresAt) {
    if (!expiresAt) return '';
    const at = typeof expiresAt === 'number' ? new Date(expiresAt) : new Date(String(expiresAt));
    if (isNaN(at)) return String(expiresAt);
    const seconds = Math.round((at - Date.now()) / 1000);
    const span = Math.abs(seconds);
    const text = span < 120 ? `${span} s` : span < 7200 ? `${Math.round(span / 60)} min` : `${Math.round(span / 3600)} h`;
    return seconds >= 0 ? `in ${text}` : `${text} ago`;
  }

  // ---------------------------------------------------------------- widgets

  function localityBadge(pairs, locality, large) {
    const known = locality && LOCALITY[locality];
    const title = locality
      ? `${pairs} GPU+HCA pair${pairs === '1' ? '' : 's'}: best locality ${locality} – ${known || ''}`
      : `${pairs} GPU+HCA pair${pairs === '1' ? '' : 's'}: not placeable on the free devices`;
    return h('li', { class: `loc loc-${locality || 'none'}${large ? ' large' : ''}`, title, 'aria-label': title },
      h('span', { class: 'loc-n', 'aria-hidden': 'true' }, pairs + '×'),
      h('span', { class: 'loc-v', 'aria-hidden': 'true' }, locality || '—'));
  }

  function localityBadges(best, large) {
    return h('ul', { class: 'locs', 'aria-label': 'Best GPU–HCA locality by number of pairs' },
      PAIR_SIZES.map((n) => localityBadge(n, best ? best[n] : null, large)));
  }

  function meter(label, counts) {
    const free = counts ? counts.free : 0;
    const total = counts ? counts.total : 0;
    const pct = total > 0 ? Math.round((100 * free) / total) : 0;
    const level = total === 0 ? 'none' : free === 0 ? 'full' : free < total ? 'some' : 'all';
    return h('div', { class: `meter meter-${level}` },
      h('span', { class: 'meter-label' }, label),
      h('span', {
        class: 'meter-bar', role: 'meter', 'aria-label': `${label} free`,
        'aria-valuemin': 0, 'aria-valuemax': total, 'aria-valuenow': free,
        'aria-valuetext': `${free} of ${total} free`,
      }, h('span', { class: 'meter-fill', style: `width:${pct}%` })),
      h('span', { class: 'meter-text' }, `${free}/${total}`));
  }

  // ---------------------------------------------------------------- header and list

  function renderSummary() {
    let gpuFree = 0, gpuTotal = 0, hcaFree = 0, hcaTotal = 0, pixPair = 0;
    for (const n of state.nodes) {
      gpuFree += n.gpus ? n.gpus.free : 0;
      gpuTotal += n.gpus ? n.gpus.total : 0;
      hcaFree += n.hcas ? n.hcas.free : 0;
      hcaTotal += n.hcas ? n.hcas.total : 0;
      if (n.bestLocality && n.bestLocality['1'] === 'PIX') pixPair++;
    }
    const item = (term, value, title) => [h('dt', { title }, term), h('dd', { title }, value)];
    replaceChildren($('summary'),
      item('Nodes', count(state.nodes.length)),
      item('GPUs free', `${count(gpuFree)} / ${count(gpuTotal)}`),
      item('HCAs free', `${count(hcaFree)} / ${count(hcaTotal)}`),
      item('PIX-ready', count(pixPair), 'Nodes that can still place a GPU and an HCA under one PCIe switch'));
  }

  function sortedNodes() {
    const filter = $('node-filter').value.trim().toLowerCase();
    const sort = $('node-sort').value;
    const list = state.nodes.filter((n) => !filter || n.name.toLowerCase().includes(filter));
    const rank = (n, k) => {
      const l = n.bestLocality ? n.bestLocality[k] : null;
      return l in LOCALITY_RANK ? LOCALITY_RANK[l] : 9;
    };
    list.sort((a, b) => {
      if (sort === 'free-gpus') {
        const d = (b.gpus ? b.gpus.free : 0) - (a.gpus ? a.gpus.free : 0);
        if (d) return d;
      } else if (sort === 'locality') {
        for (const k of ['8', '4', '2', '1']) {
          const d = rank(a, k) - rank(b, k);
          if (d) return d;
        }
      }
      return naturalCompare(a.name, b.name);
    });
    return list;
  }

  function nodeItem(n) {
    const selected = n.name === state.selected;
    return h('li', { class: 'node-item' },
      h('button', {
        type: 'button', class: 'node' + (selected ? ' selected' : ''),
        'aria-current': selected ? 'true' : null, dataset: { node: n.name },
        onclick: () => select(n.name, true),
      },
      h('span', { class: 'node-top' },
        h('span', { class: 'node-name' }, n.name),
        h('span', { class: 'tag', title: 'Discovery source' }, n.source || '?')),
      h('span', { class: 'meters' }, meter('GPU', n.gpus), meter('HCA', n.hcas)),
      h('span', { class: 'node-bottom' },
        localityBadges(n.bestLocality, false),
        h('span', { class: 'node-facts', title: 'PCIe switches and NUMA nodes' },
          `${n.switches ?? 0} sw · NUMA ${numaText(n.numaNodes)}`))));
  }

  function renderNodeList() {
    const focused = document.activeElement && document.activeElement.dataset
      ? document.activeElement.dataset.node : undefined;
    const list = sortedNodes();
    const shown = list.slice(0, MAX_LISTED);
    if (state.selected && !shown.some((n) => n.name === state.selected)) {
      const chosen = list.find((n) => n.name === state.selected);
      if (chosen) shown.unshift(chosen); // the selected node stays visible in a long list
    }
    replaceChildren($('node-list'), shown.map(nodeItem));
    $('node-count').textContent = list.length === state.nodes.length
      ? `(${count(state.nodes.length)})` : `(${count(list.length)} of ${count(state.nodes.length)})`;
    const more = $('node-more');
    more.hidden = list.length <= MAX_LISTED;
    more.textContent = `${count(list.length - MAX_LISTED)} more nodes not listed – type in the filter to find one.`;
    if (!state.scrolled && state.selected) {
      const chosen = $('node-list').querySelector(`[data-node="${CSS.escape(state.selected)}"]`);
      if (chosen) {
        chosen.scrollIntoView({ block: 'nearest' });
        state.scrolled = true;
      }
    }
    if (focused !== undefined) {
      const again = $('node-list').querySelector(`[data-node="${CSS.escape(focused)}"]`);
      if (again) again.focus();
    }
  }

  // ---------------------------------------------------------------- node detail

  function renderDetailHead(d, summary) {
    const head = $('detail-head');
    if (!d) {
      const text = state.detailError
        || (state.selected ? `Loading ${state.selected}…`
          : state.nodes.length ? 'Select a node to see its PCIe tree.' : 'The extender knows no nodes yet.');
      replaceChildren(head, h('p', { class: state.detailError ? 'empty error' : 'empty' }, text));
      return;
    }
    const devices = d.devices || [];
    const count = (kind, st) => devices.filter((x) => x.kind === kind && (!st || x.state === st)).length;
    const switches = (d.pcie || []).filter((p) => p.kind === 'SWITCH_UPSTREAM').length;
    replaceChildren(head,
      h('div', { class: 'title-row' },
        h('h2', { id: 'node-title' }, d.name),
        h('span', { class: 'tag' }, d.source || '?'),
        h('span', { class: 'links' },
          h('a', { href: apiUrl(nodePath(d.name)), target: '_blank', rel: 'noopener' }, 'JSON'),
          h('a', { href: apiUrl(nodePath(d.name) + '/matrix'), target: '_blank', rel: 'noopener' }, 'matrix text'))),
      h('div', { class: 'facts' },
        h('span', null, `GPUs ${count('GPU', 'free')}/${count('GPU')} free`),
        h('span', null, `HCAs ${count('HCA', 'free')}/${count('HCA')} free`),
        h('span', null, `${switches} PCIe switch${switches === 1 ? '' : 'es'}`),
        h('span', null, `NUMA ${numaText(d.numaNodes)}`),
        summary && summary.bestLocality
          ? h('span', { class: 'best' }, 'Best locality for k pairs: ', localityBadges(summary.bestLocality, true))
          : null));
  }

  function podOf(device, assumedById) {
    if (device.pod) return device.pod;
    const a = assumedById.get(device.id);
    return a ? { namespace: a.namespace, name: a.pod, uid: a.uid } : null;
  }

  function deviceChip(device, assumedById) {
    const st = device.healthy === false && device.state === 'free' ? 'unhealthy' : (device.state || 'free');
    const pod = podOf(device, assumedById);
    const kind = device.kind === 'HCA' ? 'HCA' : 'GPU';
    const hca = device.hca;
    const details = [
      `${kind} ${device.name || device.id}${device.model ? ' (' + device.model + ')' : ''}`,
      `id ${device.id}`,
      device.address ? `PCI ${device.address}` : null,
      device.numaNode !== undefined && device.numaNode !== -1 ? `NUMA ${device.numaNode}` : null,
      hca ? [hca.ibDevice, hca.linkLayer, hca.rate, hca.portState].filter(Boolean).join(' · ') : null,
      hca && hca.netdevs && hca.netdevs.length ? `netdev ${hca.netdevs.join(', ')}` : null,
      `state ${st}${pod ? ' – pod ' + podLabel(pod) : ''}`,
      device.claim ? `DRA claim ${device.claim}` : null,
    ].filter(Boolean);
    const portDown = hca && hca.portState && !/ACTIVE$/i.test(hca.portState);
    return h('li', {
      class: `chip chip-${kind.toLowerCase()} st-${st}`, tabindex: 0,
      title: details.join('\n'), 'aria-label': details.join(', '),
      dataset: pod ? { deviceId: device.id, state: st, pod: podKey(pod) } : { deviceId: device.id, state: st },
      style: pod ? `--pod-hue:${podHue(pod)}` : null,
    },
    h('span', { class: 'chip-top' },
      h('span', { class: 'chip-kind' }, kind),
      h('span', { class: 'chip-name' }, device.name || device.id)),
    h('span', { class: 'chip-id' }, chipDetail(device, kind, hca)),
    h('span', { class: 'chip-state' }, st),
    pod ? h('span', { class: 'chip-pod', title: podLabel(pod) }, pod.name) : null,
    portDown ? h('span', { class: 'chip-warn' }, 'port ' + hca.portState.replace(/^\d+:\s*/, '')) : null);
  }

  function chipDetail(device, kind, hca) {
    if (kind === 'HCA' && hcaLink(hca)) return hcaLink(hca);
    if (device.id !== device.name && kind === 'GPU') return shortId(device.id);
    return shortAddress(device.address) || device.id;
  }

  function hcaLink(hca) {
    if (!hca) return '';
    const layer = hca.linkLayer === 'InfiniBand' ? 'IB' : hca.linkLayer === 'Ethernet' ? 'RoCE' : hca.linkLayer;
    return [shortRate(hca.rate), layer].filter(Boolean).join(' ');
  }

  function buildTree(d) {
    const byId = new Map();
    const children = new Map();
    const devicesAt = new Map();
    const roots = [];
    const orphans = [];
    for (const p of d.pcie || []) byId.set(p.id, p);
    for (const p of d.pcie || []) {
      if (p.parent && byId.has(p.parent)) {
        if (!children.has(p.parent)) children.set(p.parent, []);
        children.get(p.parent).push(p);
      } else {
        roots.push(p);
      }
    }
    for (const dev of d.devices || []) {
      if (dev.parent && byId.has(dev.parent)) {
        if (!devicesAt.has(dev.parent)) devicesAt.set(dev.parent, []);
        devicesAt.get(dev.parent).push(dev);
      } else {
        orphans.push(dev);
      }
    }
    const weight = new Map();
    const count = (p) => {
      if (weight.has(p.id)) return weight.get(p.id);
      weight.set(p.id, 0); // guards against a cycle in bad data
      const n = (devicesAt.get(p.id) || []).length + (children.get(p.id) || []).reduce((s, c) => s + count(c), 0);
      weight.set(p.id, n);
      return n;
    };
    roots.forEach(count);
    return { children, devicesAt, roots, orphans, weight };
  }

  const byPosition = (a, b) => naturalCompare(a.address || a.id, b.address || b.id);

  function treeNode(p, tree, ctx, depth) {
    if (depth > 16 || tree.weight.get(p.id) === 0) return null;
    const kids = (tree.children.get(p.id) || []).slice().sort(byPosition);
    const devices = (tree.devicesAt.get(p.id) || []).slice().sort(byDevice);
    const chips = devices.length
      ? h('ul', { class: 'chips', 'aria-label': `Devices under ${label(p)}` }, devices.map((x) => deviceChip(x, ctx.assumedById)))
      : null;
    const inner = kids.map((k) => treeNode(k, tree, ctx, depth + 1));
    const kind = (p.kind || 'BRIDGE').toLowerCase().replace('_', '-');
    const vendor = vendorText(p);
    return h('div', { class: `tn tn-${kind}`, role: 'group', 'aria-label': label(p), dataset: { pcie: p.id } },
      h('div', { class: 'tn-label' },
        h('span', { class: 'tn-kind' }, kindLabel(p)),
        h('span', { class: 'tn-addr' }, nodeName(p)),
        vendor ? h('span', { class: 'tn-vendor' }, vendor) : null),
      h('div', { class: 'tn-body' }, chips, inner));
  }

  function kindLabel(p) {
    if (p.kind === 'CPU_DOMAIN') return (p.numaNodes || []).length > 1 ? 'NUMA nodes' : 'NUMA';
    return KIND_LABEL[p.kind] || p.kind || 'Bridge';
  }

  function nodeName(p) {
    if (p.kind === 'CPU_DOMAIN') return (p.numaNodes || []).length ? numaText(p.numaNodes) : p.id;
    if (p.address) return shortAddress(p.address);
    return String(p.id).replace(/^[a-z]+:/i, '');
  }

  function label(p) {
    return `${kindLabel(p)} ${nodeName(p)}`;
  }

  function byDevice(a, b) {
    if (a.kind !== b.kind) return a.kind === 'GPU' ? -1 : 1;
    return naturalCompare(a.address || a.name || a.id, b.address || b.name || b.id);
  }

  function renderTree(d) {
    const root = $('tree');
    if (!d) {
      replaceChildren(root);
      return;
    }
    const tree = buildTree(d);
    const assumedById = new Map();
    for (const a of d.assumed || []) {
      for (const id of [...(a.gpus || []), ...(a.hcas || [])]) assumedById.set(id, a);
    }
    const ctx = { assumedById };
    const domains = tree.roots.slice().sort((a, b) =>
      Math.min(...(a.numaNodes && a.numaNodes.length ? a.numaNodes : [99])) -
      Math.min(...(b.numaNodes && b.numaNodes.length ? b.numaNodes : [99])) || byPosition(a, b));
    const drawn = domains.map((p) => treeNode(p, tree, ctx, 0)).filter(Boolean);
    const empty = domains.filter((p) => tree.weight.get(p.id) === 0);
    const orphanChips = tree.orphans.length
      ? h('div', { class: 'tn tn-orphans', role: 'group', 'aria-label': 'Devices outside the PCIe tree' },
        h('div', { class: 'tn-label' }, h('span', { class: 'tn-kind' }, 'Outside the PCIe tree')),
        h('ul', { class: 'chips' }, tree.orphans.slice().sort(byDevice).map((x) => deviceChip(x, assumedById))))
      : null;
    replaceChildren(root,
      drawn.length || orphanChips ? null : h('p', { class: 'empty' }, 'This node reports no GPUs or HCAs.'),
      h('div', { class: 'domains' }, drawn, orphanChips),
      empty.length
        ? h('p', { class: 'note' }, `Without GPUs or HCAs: ${empty.map(label).join(', ')}.`)
        : null);
  }

  function podsOf(d) {
    const pods = new Map();
    const assumedById = new Map();
    for (const a of d.assumed || []) {
      for (const id of [...(a.gpus || []), ...(a.hcas || [])]) assumedById.set(id, a);
    }
    for (const device of d.devices || []) {
      const pod = podOf(device, assumedById);
      if (!pod || (device.state !== 'allocated' && device.state !== 'assumed')) continue;
      const key = podKey(pod);
      if (!pods.has(key)) pods.set(key, { pod, state: device.state, gpus: [], hcas: [], claims: [], locality: null, expiresAt: null });
      const entry = pods.get(key);
      (device.kind === 'HCA' ? entry.hcas : entry.gpus).push(device.name || device.id);
      if (device.claim && !entry.claims.includes(device.claim)) entry.claims.push(device.claim);
      if (device.state === 'assumed') entry.state = 'assumed';
    }
    for (const a of d.assumed || []) {
      const key = a.uid || `${a.namespace}/${a.pod}`;
      const entry = pods.get(key);
      if (entry) Object.assign(entry, { locality: a.locality, expiresAt: a.expiresAt });
    }
    for (const a of d.allocations || []) {
      const key = a.uid || (a.pod && typeof a.pod === 'object' ? podKey(a.pod) : `${a.namespace}/${a.pod || a.name}`);
      const entry = pods.get(key);
      if (entry && a.locality && !entry.locality) entry.locality = a.locality;
    }
    return [...pods.values()].sort((a, b) => naturalCompare(podLabel(a.pod), podLabel(b.pod)));
  }

  function highlight(key) {
    state.highlight = key;
    for (const chip of $('tree').querySelectorAll('.chip')) {
      chip.classList.toggle('hl', key !== null && chip.dataset.pod === key);
      chip.classList.toggle('dim', key !== null && chip.dataset.pod !== key);
    }
  }

  function renderPods(d) {
    const root = $('pods');
    const pods = d ? podsOf(d) : [];
    if (!pods.length) {
      replaceChildren(root, h('p', { class: 'empty' }, d ? 'No pod holds or is being bound to devices on this node.' : ''));
      return;
    }
    replaceChildren(root, h('table', { class: 'grid' },
      h('thead', null, h('tr', null, ['Pod', 'State', 'GPUs', 'HCAs', 'DRA claims', 'Locality', 'Assumption expires']
        .map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', null, pods.map((p) => h('tr', {
        tabindex: 0, title: 'Highlight this pod\'s devices in the tree',
        onmouseenter: () => highlight(podKey(p.pod)), onmouseleave: () => highlight(null),
        onfocus: () => highlight(podKey(p.pod)), onblur: () => highlight(null),
      },
        h('th', { scope: 'row' }, h('span', { class: 'pod-dot', style: `--pod-hue:${podHue(p.pod)}`, 'aria-hidden': 'true' }), podLabel(p.pod)),
        h('td', null, h('span', { class: `state-tag st-${p.state}` }, p.state)),
        h('td', { class: 'mono' }, p.gpus.join(', ') || '—'),
        h('td', { class: 'mono' }, p.hcas.join(', ') || '—'),
        h('td', { class: 'mono' }, p.claims.join(', ') || '—'),
        h('td', null, p.locality ? h('span', { class: `loc-inline loc-${p.locality}`, title: LOCALITY[p.locality] || '' }, p.locality) : '—'),
        h('td', null, p.state === 'assumed' ? expiresText(p.expiresAt) : '—'))))));
  }

  function renderDevices(d) {
    const root = $('devices');
    if (!d) {
      replaceChildren(root);
      return;
    }
    const switchName = (id) => (id ? String(id).replace(/^pci:(0000:)?/, '') : '—');
    replaceChildren(root, h('div', { class: 'scroll' }, h('table', { class: 'grid' },
      h('thead', null, h('tr', null, ['Kind', 'Name', 'Id', 'PCI address', 'NUMA', 'Switch', 'HCA link', 'State', 'Pod']
        .map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', null, (d.devices || []).slice().sort(byDevice).map((x) => h('tr', null,
        h('td', null, x.kind),
        h('th', { scope: 'row', title: x.model || null }, x.name || x.id),
        h('td', { class: 'mono id' }, x.id),
        h('td', { class: 'mono' }, x.address || '—'),
        h('td', null, x.numaNode === undefined || x.numaNode === -1 ? '—' : x.numaNode),
        h('td', { class: 'mono' }, switchName(x.switch)),
        h('td', null, x.hca ? [x.hca.linkLayer, shortRate(x.hca.rate), x.hca.portState].filter(Boolean).join(' · ') || '—' : '—'),
        h('td', null, h('span', { class: `state-tag st-${x.healthy === false ? 'unhealthy' : x.state}` }, x.healthy === false ? 'unhealthy' : x.state)),
        h('td', null, x.pod ? podLabel(x.pod) + (x.claim ? ` (claim ${x.claim})` : '') : '—')))))));
  }

  async function renderMatrix() {
    const panel = $('matrix-panel');
    const pre = $('matrix');
    if (!panel.open || !state.selected) return;
    const name = state.selected;
    try {
      const text = await fetchBody(nodePath(name) + '/matrix', true);
      if (name === state.selected) pre.textContent = text;
    } catch (e) {
      if (name === state.selected) pre.textContent = `Could not load the matrix: ${e.message}`;
    }
  }

  function renderDetail() {
    const d = state.detail && state.detail.name === state.selected ? state.detail : null;
    const summary = state.nodes.find((n) => n.name === state.selected);
    renderDetailHead(d, summary);
    renderTree(d);
    if (state.highlight) highlight(state.highlight);
    renderPods(d);
    renderDevices(d);
    $('pods-panel').hidden = !d;
    $('devices-panel').hidden = !d;
    $('matrix-panel').hidden = !d;
  }

  // ---------------------------------------------------------------- refresh cycle

  function setStatus(text, kind) {
    const el = $('status');
    el.textContent = text;
    el.dataset.kind = kind;
  }

  async function loadDetail(name) {
    try {
      const detail = await fetchBody(nodePath(name));
      if (name !== state.selected) return;
      state.detail = detail;
      state.detailError = null;
    } catch (e) {
      if (name !== state.selected) return;
      state.detail = null;
      state.detailError = e.status === 404 ? `Node ${name} is not known to the extender.` : e.message;
    }
  }

  function selectionFromHash() {
    const m = /^#node=(.+)$/.exec(location.hash);
    return m ? decodeURIComponent(m[1]) : null;
  }

  async function refresh() {
    if (state.inFlight) return;
    state.inFlight = true;
    clearTimeout(state.timer);
    try {
      // Large clusters: the whole list is refreshed less often than the selected node.
      const listEvery = state.nodes.length > LARGE_CLUSTER ? LARGE_LIST_REFRESH_MS : REFRESH_MS;
      if (Date.now() - state.listAt >= listEvery - 500) {
        const list = await fetchBody('topology/nodes');
        state.nodes = Array.isArray(list.nodes) ? list.nodes : [];
        state.listAt = Date.now();
      }
      if (!state.selected) {
        state.selected = selectionFromHash() || (state.nodes.length ? sortedNodes()[0]?.name ?? state.nodes[0].name : null);
      }
      renderSummary();
      renderNodeList();
      if (state.selected) await loadDetail(state.selected);
      renderDetail();
      await renderMatrix();
      setStatus(`Updated ${timeText(new Date())}` + (state.nodes.length > LARGE_CLUSTER
        ? ` (node list every ${LARGE_LIST_REFRESH_MS / 1000} s)` : ''), 'ok');
    } catch (e) {
      setStatus(`Cannot reach the extender (${e.message}); retrying`, 'error');
    } finally {
      state.inFlight = false;
      schedule();
    }
  }

  function schedule() {
    clearTimeout(state.timer);
    if ($('auto-refresh').checked && !document.hidden) state.timer = setTimeout(refresh, REFRESH_MS);
  }

  async function select(name, fromUser) {
    if (!name) return;
    state.selected = name;
    if (fromUser) history.replaceState(null, '', '#node=' + encodeURIComponent(name));
    renderNodeList();
    renderDetail();
    await loadDetail(name);
    renderDetail();
    $('matrix').textContent = '';
    await renderMatrix();
  }

  function start() {
    $('node-filter').addEventListener('input', renderNodeList);
    $('node-sort').addEventListener('change', renderNodeList);
    $('auto-refresh').addEventListener('change', (e) => {
      if (e.target.checked) refresh();
      else {
        clearTimeout(state.timer);
        setStatus('Auto-refresh paused', 'paused');
      }
    });
    $('matrix-panel').addEventListener('toggle', renderMatrix);
    window.addEventListener('hashchange', () => {
      const name = selectionFromHash();
      if (name && name !== state.selected) select(name, false);
    });
    document.addEventListener('visibilitychange', () => {
      if (!document.hidden && $('auto-refresh').checked) refresh();
    });
    $('node-list').addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
      const buttons = [...$('node-list').querySelectorAll('button.node')];
      const i = buttons.indexOf(document.activeElement);
      const next = buttons[i + (e.key === 'ArrowDown' ? 1 : -1)];
      if (next) {
        e.preventDefault();
        next.focus();
      }
    });
    renderDetail();
    refresh();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
