// The playground: on every input event the profile's text goes to svcgen (the WebAssembly
// module embedded above as base64, raw C ABI: alloc, answer, result pointer) and the page shows
// what `svcgen validate - --format json` and `svcgen render - -t TARGET` would print. A classic
// script: from file:// a page can neither fetch a sibling file nor import a module.
'use strict';
(function () {
  const profile = document.getElementById('profile');
  const picker = document.getElementById('example');
  const list = document.getElementById('diagnostics');
  const status = document.getElementById('status');
  const notes = document.getElementById('notes');
  const outputs = new Map();
  document.querySelectorAll('pre[data-target]').forEach((pre) => {
    outputs.set(pre.dataset.target, {
      pre,
      state: document.querySelector('[data-state-of="' + pre.dataset.target + '"]'),
    });
  });
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let module = null;
  let wasm = null;

  function bytesOf(base64) {
    const binary = atob(base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  function answer(text) {
    const input = encoder.encode(text);
    const ptr = wasm.svcgen_alloc(input.length);
    new Uint8Array(wasm.memory.buffer, ptr, input.length).set(input);
    const len = wasm.svcgen_answer(ptr, input.length);
    return JSON.parse(decoder.decode(new Uint8Array(wasm.memory.buffer, wasm.svcgen_result_ptr(), len)));
  }

  // Selects the whole 1-based line `line` of the profile.
  function selectLine(line) {
    const text = profile.value;
    let start = 0;
    for (let n = 1; n < line; n++) {
      const next = text.indexOf('\n', start);
      if (next < 0) break;
      start = next + 1;
    }
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    profile.focus();
    profile.setSelectionRange(start, end);
  }

  function diagnosticItem(d) {
    const li = document.createElement('li');
    li.dataset.code = d.code;
    li.dataset.severity = d.severity;
    let where = '';
    if (d.line != null) {
      li.dataset.line = String(d.line);
      where = 'line ' + d.line + ':' + d.column + ' ';
      li.tabIndex = 0;
      li.title = 'Select line ' + d.line;
      li.addEventListener('click', () => selectLine(d.line));
      li.addEventListener('keydown', (e) => { if (e.key === 'Enter') selectLine(d.line); });
    }
    const head = document.createElement('span');
    head.className = 'head';
    head.textContent = d.severity + ' ' + d.code + ' ' + where;
    const message = document.createElement('span');
    message.className = 'message';
    message.textContent = d.message;
    li.append(head, message);
    if (d.help) {
      const help = document.createElement('span');
      help.className = 'help';
      help.textContent = 'help: ' + d.help;
      li.append(help);
    }
    return li;
  }

  function skippedNotes(result) {
    const parts = [];
    if (result.host_files.length > 0) {
      parts.push('Host-file checks were skipped: the browser has no file system, so ' +
        result.host_files.join(', ') + ' ' + (result.host_files.length === 1 ? 'was' : 'were') +
        ' not looked for (svcgen validate on your machine checks them).');
    }
    if (result.extends.length > 0) {
      parts.push('This profile extends ' + result.extends.join(', ') +
        ': the browser cannot read other files, so only this text is checked and rendered.');
    }
    return parts.join(' ');
  }

  function show(result, ms) {
    const diagnostics = JSON.parse(result.validate);
    list.replaceChildren(...diagnostics.map(diagnosticItem));
    for (const [target, { pre, state }] of outputs) {
      const rendered = result.targets[target];
      pre.textContent = rendered.text ?? '';
      state.textContent = rendered.text == null ? '(not rendered: see the errors)' : '';
    }
    notes.textContent = skippedNotes(result);
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    status.textContent = (result.validate_exit === 0 ? 'valid' : 'invalid') + ', ' +
      errors + ' error(s), ' + (diagnostics.length - errors) + ' other diagnostic(s); answered in ' +
      ms.toFixed(1) + ' ms';
    status.dataset.ms = ms.toFixed(1);
  }

  function restart() {
    wasm = null;
    WebAssembly.instantiate(module, {}).then((instance) => {
      wasm = instance.exports;
      update();
    });
  }

  function update() {
    if (!wasm) return;
    const started = performance.now();
    let result;
    try {
      result = answer(profile.value);
    } catch (error) {
      // A trap leaves the instance unusable: report it and start a fresh one.
      status.textContent = 'svcgen failed on this text (' + error + '); please report it';
      restart();
      return;
    }
    show(result, performance.now() - started);
  }

  profile.addEventListener('input', update);
  picker.addEventListener('change', () => {
    profile.value = SVCGEN_EXAMPLES[Number(picker.value)].text;
    update();
  });
  WebAssembly.compile(bytesOf(SVCGEN_WASM_BASE64))
    .then((compiled) => {
      module = compiled;
      return WebAssembly.instantiate(module, {});
    })
    .then((instance) => {
      wasm = instance.exports;
      document.body.dataset.ready = 'true';
      update();
    })
    .catch((error) => { status.textContent = 'svcgen could not start: ' + error; });
})();
