// Helpers the browser test evaluates in JupyterLab's page (installed as window.__whygpu).
// They only read the page (the DOM, and the app's models where the DOM is ambiguous) and return
// coordinates for the test to click with real mouse events.
window.__whygpu = (() => {
  const q = (sel, root) => Array.from((root || document).querySelectorAll(sel));
  // Rendered for the eye: laid out with a size, and not hidden by display, visibility, opacity or
  // content-visibility on it or an ancestor (the content of a closed <details> is hidden that way).
  const visible = (el) => {
    if (!el) return false;
    if (el.checkVisibility && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: false })) return false;
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none' && el.getClientRects().length > 0;
  };
  // The notebook in the main area: the app's current widget when it is a notebook.
  const panel = () => {
    const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    if (w && w.node && w.node.classList.contains('jp-NotebookPanel')) return w.node;
    return q('.jp-NotebookPanel').find((p) => !p.classList.contains('lm-mod-hidden'));
  };
  const cells = () => (panel() ? q('.jp-Notebook .jp-Cell', panel()) : []);
  const center = (el) => {
    el.scrollIntoView({ block: 'center', inline: 'nearest' });
    const r = el.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width, h: r.height };
  };
  const app = () => window.jupyterapp;
  const widget = () => (app() && app().shell.currentWidget) || null;

  return {
    // The notebook is open, its kernel named in the toolbar, connected and not busy. (GoNB sends no
    // status message at start-up, so JupyterLab shows "Unknown" until the first cell runs.)
    notebookReady(path) {
      const p = panel();
      if (!p) return false;
      const cw = widget();
      if (path && !(cw && cw.context && cw.context.path === path)) return false;
      const name = q('.jp-Toolbar-kernelName', p).map((e) => e.textContent.trim()).join('');
      const status = q('.jp-Notebook-ExecutionIndicator', p).map((e) => e.dataset.status).join('');
      const w = widget();
      const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
      if (!name || name === 'No Kernel' || !k || k.connectionStatus !== 'connected') return false;
      if (!['idle', 'unknown'].includes(status)) return false;
      return { displayName: name, status, connection: k.connectionStatus };
    },
    // The kernel as the app knows it: spec name and display name.
    kernel() {
      const w = widget();
      const sc = w && w.sessionContext;
      const k = sc && sc.session && sc.session.kernel;
      return { name: k ? k.name : '', displayName: sc ? sc.kernelDisplayName : '', status: k ? k.status : '' };
    },
    // The active tab of the left side bar (clicking it collapses the side bar).
    sidebarTab() {
      const el = q('#jp-left-stack, .jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current').find((e) => e.classList.contains('lm-TabBar-tab') && visible(e));
      return el ? center(el) : null;
    },
    // Center of a top menu (by label), to click it.
    menu(label) {
      const el = q('.lm-MenuBar-item').find((e) => e.textContent.trim() === label);
      return el ? center(el) : null;
    },
    // Center of an open menu's item (by command id or label), once visible.
    menuItem(command, label) {
      const el = q('.lm-Menu-item').filter(visible).find((e) => e.dataset.command === command ||
        q('.lm-Menu-itemLabel', e).some((l) => l.textContent.trim() === label));
      return el ? center(el) : null;
    },
    // Execution state of the code cells: their prompts, the kernel status, and whether a run is over.
    runState() {
      const code = cells().filter((c) => c.classList.contains('jp-CodeCell'));
      const prompts = code.map((c) => {
        const p = c.querySelector('.jp-InputArea-prompt');
        return p ? p.textContent.trim() : '';
      });
      const p = panel();
      const status = p ? q('.jp-Notebook-ExecutionIndicator', p).map((e) => e.dataset.status).join('') : '';
      // Run All marks every code cell queued ("[*]:") at once; it is over when none is left queued or
      // running and the kernel is not busy. (A cell that failed keeps "[ ]:"; GoNB's status can read
      // "unknown" rather than "idle".)
      const done = code.length > 0 && !prompts.some((t) => t === '[*]:') && status !== 'busy';
      return { prompts, status, done, cells: cells().length };
    },
    runStarted() {
      return this.runState().prompts.some((t) => t === '[*]:' || /^\[\d+\]:$/.test(t));
    },
    runDone() {
      const s = this.runState();
      return s.done ? s : false;
    },
    // Error outputs, from the DOM (what the learner sees) and the cell models.
    errors() {
      const out = [];
      cells().forEach((c, i) => {
        q('.jp-OutputArea-output', c).forEach((o) => {
          const mime = o.dataset.mimeType || '';
          const text = (o.innerText || o.textContent || '').trim();
          if (mime === 'application/vnd.jupyter.stderr' && /panic:|error|failed|cannot/i.test(text)) {
            out.push({ cell: i + 1, kind: 'stderr', text: text.slice(0, 600) });
          }
          if (o.querySelector('.whygpu-error, .gonb-err-location, [class*="gonb_error"]')) {
            out.push({ cell: i + 1, kind: 'error box', text: text.slice(0, 600) });
          }
        });
      });
      const w = widget();
      const model = w && w.content && w.content.model;
      if (model) {
        for (let i = 0; i < model.cells.length; i++) {
          const cm = model.cells.get(i);
          if (cm.type !== 'code') continue;
          const outs = cm.toJSON().outputs || [];
          outs.forEach((o) => {
            if (o.output_type === 'error') out.push({ cell: i + 1, kind: 'error output', text: `${o.ename}: ${o.evalue}` });
          });
        }
      }
      return out;
    },
    // Rendered charts: <img> and <svg> in outputs, with their rendered size and the text of the first
    // visible origin badge (pkg/view/display's .whygpu-badge) in the same cell ('' when none shows).
    charts() {
      const out = [];
      cells().forEach((c, i) => {
        const b = q('.whygpu-badge', c).find((el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; });
        const badge = b ? b.textContent.trim() : '';
        q('.jp-OutputArea-output img, .jp-OutputArea-output svg', c).forEach((el, k) => {
          if (el.tagName.toLowerCase() === 'svg' && el.parentElement && el.parentElement.closest('svg')) return;
          const r = el.getBoundingClientRect();
          const loaded = el.tagName.toLowerCase() !== 'img' || (el.complete && el.naturalWidth > 0);
          out.push({ cell: i + 1, tag: el.tagName.toLowerCase(), w: Math.round(r.width), h: Math.round(r.height), loaded, k, badge });
        });
      });
      return out;
    },
    // Outputs wider than their area: every output holding a chart (img, svg) or a table, with its
    // scrollWidth and clientWidth, and each chart or table whose right edge passes the output's.
    overflows() {
      const out = [];
      cells().forEach((c, i) => {
        q('.jp-OutputArea-output', c).forEach((o) => {
          const items = q('img, svg, table', o).filter((el) => !(el.tagName.toLowerCase() === 'svg' && el.parentElement.closest('svg')));
          if (items.length === 0) return;
          const box = o.getBoundingClientRect();
          const wide = items.filter((el) => el.getBoundingClientRect().right > box.right + 1)
            .map((el) => el.tagName.toLowerCase() + ' ' + Math.round(el.getBoundingClientRect().width) + 'px');
          out.push({ cell: i + 1, scrollWidth: o.scrollWidth, clientWidth: o.clientWidth, wide });
        });
      });
      return out;
    },
    // Scrolls a cell into view (1-based number), top aligned.
    // toasts: the text of every notification toast on the page (JupyterLab's news prompt is one).
    toasts() {
      return Array.from(document.querySelectorAll('.Toastify__toast, .jp-toast-message')).map(e => e.textContent.trim());
    },
    showCell(n, block) {
      const c = cells()[n - 1];
      if (!c) return false;
      c.scrollIntoView({ block: block || 'start' });
      return true;
    },
    // Scrolls so that the nth chart (0-based over charts()) is centered.
    showChart(n) {
      const all = q('.jp-Notebook .jp-OutputArea-output img, .jp-Notebook .jp-OutputArea-output svg')
        .filter((el) => !(el.tagName.toLowerCase() === 'svg' && el.parentElement.closest('svg')));
      const big = all.filter((el) => { const r = el.getBoundingClientRect(); return r.width >= 200 && r.height >= 100; });
      const el = big[n];
      if (!el) return false;
      el.scrollIntoView({ block: 'center' });
      return true;
    },
    // The text of a cell's outputs (1-based number).
    outputText(n) {
      const c = cells()[n - 1];
      return c ? q('.jp-OutputArea-output', c).map((o) => o.textContent).join('\n') : '';
    },
    // --- The race widget (pkg/view/display race.go: its documented data-race-* hooks) ---
    // Live race controls on the page: id, data-race-live, and the cell (1-based) they are in.
    races() {
      return q('.whygpu-race-controls[id]').map((c) => ({
        id: c.id, live: c.dataset.raceLive || '', cell: cells().indexOf(c.closest('.jp-Cell')) + 1,
      }));
    },
    // The bars and sliders of the race whose controls have this id.
    race(id) {
      const c = document.getElementById(id);
      if (!c) return null;
      const cell = c.closest('.jp-Cell');
      const bars = cell ? cell.querySelector('.whygpu-race') : null;
      const slider = c.querySelector('input[data-race-input="batch"]');
      const out = { live: c.dataset.raceLive || '', slider: slider ? +slider.value : -1, sliderMax: slider ? +slider.max : -1 };
      if (bars) {
        Object.assign(out, {
          round: +bars.dataset.raceRound, state: bars.dataset.raceState, batch: +bars.dataset.raceBatch,
          hidden: +bars.dataset.raceHidden, winner: bars.dataset.raceWinner || '',
          lanes: q('.whygpu-race-lane', bars).map((l) => {
            const bar = l.querySelector('.whygpu-race-bar');
            return { device: l.dataset.raceLane, seconds: +l.dataset.raceSeconds, width: bar ? bar.style.width : '' };
          }),
        });
      }
      return out;
    },
    // Waits for a race to be done at a round of at least minRound (for Poll).
    raceDone(id, minRound) {
      const r = this.race(id);
      return r && r.state === 'done' && r.round >= minRound ? r : false;
    },
    // Where to click on the batch slider's track to land on stop idx.
    raceSliderPoint(id, idx) {
      const c = document.getElementById(id);
      const s = c && c.querySelector('input[data-race-input="batch"]');
      if (!s || s.disabled) return null;
      s.scrollIntoView({ block: 'center' });
      const r = s.getBoundingClientRect();
      const thumb = 8; // half the thumb: the track's usable span is inset by it at both ends
      return { x: r.left + thumb + (r.width - 2 * thumb) * idx / +s.max, y: r.top + r.height / 2, w: r.width, h: r.height };
    },
    raceStopButton(id) {
      const c = document.getElementById(id);
      const b = c && c.querySelector('button[data-race-stop]');
      return b && !b.disabled && visible(b) ? center(b) : null;
    },
    showRace(id) {
      const c = document.getElementById(id);
      const cell = c && c.closest('.jp-Cell');
      if (!cell) return false;
      (cell.querySelector('.jp-OutputArea') || cell).scrollIntoView({ block: 'center' });
      return true;
    },

    // --- The panel widget (pkg/view/display panel.go: its documented data-panel-* hooks) ---
    // Panel controls on the page: id, data-panel-live, and the cell (1-based) they are in.
    panels() {
      return q('.whygpu-panel-controls[id]').map((c) => ({
        id: c.id, live: c.dataset.panelLive || '', cell: cells().indexOf(c.closest('.jp-Cell')) + 1,
      }));
    },
    // The view under the panel whose controls have this id.
    panel(id) {
      const c = document.getElementById(id);
      if (!c) return null;
      const cell = c.closest('.jp-Cell');
      const v = cell ? cell.querySelector('.whygpu-panel') : null;
      const preset = c.querySelector('[data-panel-preset]');
      const out = { live: c.dataset.panelLive || '', preset: preset ? preset.value : '' };
      if (v) {
        const cap = v.querySelector('.whygpu-panel-caption');
        Object.assign(out, {
          round: +v.dataset.panelRound, state: v.dataset.panelState, values: v.dataset.panelValues,
          chart: !!v.querySelector('.whygpu-panel-chart svg'), fold: !!v.querySelector('details.whygpu-panel-fold'),
          caption: cap ? cap.textContent : '',
        });
      }
      return out;
    },
    // Waits for a panel's view to reach a round (for Poll).
    panelRound(id, minRound) {
      const p = this.panel(id);
      return p && p.round >= minRound ? p : false;
    },
    // The center of a panel's input (to click into it).
    panelInput(id, name) {
      const c = document.getElementById(id);
      const el = c && c.querySelector('[data-panel-input="' + name + '"]');
      return el && !el.disabled && visible(el) ? center(el) : null;
    },
    panelStopButton(id) {
      const c = document.getElementById(id);
      const b = c && c.querySelector('button[data-panel-stop]');
      return b && !b.disabled && visible(b) ? center(b) : null;
    },

    // --- The recall check (pkg/teach/recall: its documented hooks) ---
    // The first recall check: is its first answer visible, the counters of the page.
    recall() {
      const root = q('.whygpu-recall')[0];
      if (!root) return null;
      const card = root.querySelector('.whygpu-recall-card');
      const answer = card && card.querySelector('.whygpu-recall-answer');
      const details = card && card.querySelector('details.whygpu-recall-reveal');
      const grade = card && card.querySelector('.whygpu-recall-grade');
      return {
        widgets: q('.whygpu-recall').length,
        cell: cells().indexOf(root.closest('.jp-Cell')) + 1,
        total: +root.dataset.recallTotal,
        card: card ? card.dataset.recallCard : '',
        state: card ? card.dataset.recallState : '',
        open: !!(details && details.open),
        answerVisible: visible(answer),
        answerText: answer ? answer.textContent.trim() : '',
        gradeVisible: visible(grade),
        counts: q('.whygpu-recall-count').map((e) => ({ n: +e.dataset.recallCount, text: e.textContent.trim() })),
      };
    },
    recallSummary() {
      const s = q('.whygpu-recall .whygpu-recall-card summary')[0];
      return s && visible(s) ? center(s) : null;
    },
    recallYes() {
      const b = q('.whygpu-recall .whygpu-recall-card [data-recall-grade="yes"]')[0];
      return b && visible(b) ? center(b) : null;
    },
    showRecall() {
      const root = q('.whygpu-recall')[0];
      if (!root) return false;
      root.scrollIntoView({ block: 'center' });
      return true;
    },

    // Append a code cell with this source, put the cursor at its end in edit mode and return the
    // editor's center (the test then presses keys there, as a learner does).
    typeInNewCell(src) {
      const w = widget();
      const nb = w && w.content;
      if (!nb || !nb.model) return null;
      nb.activeCellIndex = nb.model.cells.length - 1;
      app().commands.execute('notebook:insert-cell-below');
      const cell = nb.activeCell;
      cell.model.sharedModel.setSource(src);
      nb.mode = 'edit';
      const ed = cell.editor;
      ed.setCursorPosition(ed.getPositionAt(src.length));
      ed.focus();
      return center(cell.node.querySelector('.jp-InputArea-editor') || cell.node);
    },
    // Put the cursor of cell n (1-based) right after the first `find` in its source, in edit mode.
    cursorAfter(n, find) {
      const nb = widget() && widget().content;
      if (!nb || !nb.widgets[n - 1]) return null;
      nb.activeCellIndex = n - 1;
      const cell = nb.activeCell;
      const src = cell.model.sharedModel.getSource();
      const at = src.indexOf(find);
      if (at < 0) return null;
      nb.mode = 'edit';
      cell.editor.setCursorPosition(cell.editor.getPositionAt(at + find.length));
      cell.editor.focus();
      return { at };
    },
    // The source of cell n (1-based).
    cellSource(n) {
      const nb = widget() && widget().content;
      return nb && nb.model && nb.model.cells.get(n - 1) ? nb.model.cells.get(n - 1).sharedModel.getSource() : null;
    },
    // Run cell n (1-based) as its Run button does.
    runCell(n) {
      const nb = widget() && widget().content;
      if (!nb || !nb.widgets[n - 1]) return false;
      nb.activeCellIndex = n - 1;
      nb.mode = 'command';
      app().commands.execute('notebook:run-cell');
      return true;
    },
    // Save the notebook (File → Save); resolves when saved.
    save() {
      return app().commands.execute('docmanager:save').then(() => true);
    },
    // The text of cell n's outputs when it contains `want` (for polling), else null.
    outputHas(n, want) {
      const c = cells()[n - 1];
      const t = c ? q('.jp-OutputArea-output', c).map((o) => o.textContent).join('\n') : '';
      return t.includes(want) ? t : null;
    },
    // The items JupyterLab's completer offers now (null while it is closed or empty). Every item
    // of an open completer counts, not only those scrolled into view: its list is a scrolling box
    // that JupyterLab fills in batches.
    completions() {
      const box = q('.jp-Completer').filter(visible)[0];
      if (!box) return null;
      const items = q('.jp-Completer-item', box).map((li) => {
        const m = li.querySelector('.jp-Completer-match');
        return (m || li).textContent.trim();
      });
      return items.length ? items : null;
    },

    // The source of every cell, to find cells by what they call.
    sources() {
      const w = widget();
      const model = w && w.content && w.content.model;
      if (!model) return [];
      const out = [];
      for (let i = 0; i < model.cells.length; i++) {
        const cm = model.cells.get(i);
        out.push({ n: i + 1, type: cm.type, source: cm.sharedModel.getSource() });
      }
      return out;
    },
  };
})();
