// Loads the WebAssembly module embedded in playground.html the way the page does (the base64
// text of its classic script) and calls its raw C ABI. Shared by the Node tests.
export async function loadPlayground(html) {
  const found = /const SVCGEN_WASM_BASE64 = "([A-Za-z0-9+/=]+)";/.exec(html);
  if (!found) throw new Error('playground.html embeds no SVCGEN_WASM_BASE64');
  const bytes = Buffer.from(found[1], 'base64');
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const wasm = instance.exports;
  return {
    bytes: bytes.length,
    answer(text) {
      const input = new TextEncoder().encode(text);
      const ptr = wasm.svcgen_alloc(input.length);
      new Uint8Array(wasm.memory.buffer, ptr, input.length).set(input);
      const len = wasm.svcgen_answer(ptr, input.length);
      const out = new Uint8Array(wasm.memory.buffer, wasm.svcgen_result_ptr(), len);
      return JSON.parse(new TextDecoder().decode(out));
    },
  };
}
