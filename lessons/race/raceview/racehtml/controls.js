(function () {
  var root = document.getElementById({{.ID}});
  if (!root || root.getAttribute("data-race-ready")) { return; }
  root.setAttribute("data-race-ready", "1");
  var addr = {{.Address}}, B = {{.Batches}}, H = {{.Hiddens}}, idleSecs = {{.IdleSecs}};
  var bi = root.querySelector('[data-race-input="batch"]'), hi = root.querySelector('[data-race-input="hidden"]');
  var link = root.querySelector("[data-race-link]"), seq = 0, acked = false, comm = null, timer = null, tries = 0;
  function now() {
    var t = Date.now();
    seq = t > seq ? t : seq + 1; // increasing even across re-renders of this output
    return seq + ":" + B[+bi.value] + "," + H[+hi.value];
  }
  function labels() {
    root.querySelector('[data-race-value="batch"]').textContent = B[+bi.value];
    root.querySelector('[data-race-value="hidden"]').textContent = H[+hi.value];
  }
  function send(v) {
    var c = globalThis.gonb_comm;
    if (!c) { return false; }
    if (c !== comm) {
      comm = c;
      c.subscribe(addr + "/ack", function () {
        if (acked) { return; }
        acked = true;
        root.setAttribute("data-race-live", "yes");
        link.textContent = "live: move a slider to race again (stops after " + idleSecs + " s without a move)";
      });
    }
    c.send(addr, v);
    return true;
  }
  function moved() { labels(); clearTimeout(timer); timer = setTimeout(function () { send(now()); }, 120); }
  bi.addEventListener("input", moved); hi.addEventListener("input", moved);
  bi.addEventListener("change", moved); hi.addEventListener("change", moved);
  root.querySelector("[data-race-stop]").addEventListener("click", function () {
    send("stop"); this.disabled = true; bi.disabled = true; hi.disabled = true;
    link.textContent = "stopping…";
  });
  (function hello() {
    if (acked || !document.body.contains(root)) { return; }
    send(now());
    if (++tries < 30) { setTimeout(hello, tries < 6 ? 400 : 1500); }
    else { root.setAttribute("data-race-live", "no"); link.textContent = "not connected to the kernel: re-run the cell"; }
  })();
})();
