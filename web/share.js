// Share links: the page's state in the URL fragment, so nothing is sent to a
// server (the fragment never leaves the browser). docs/playground.md
// "Share links" gives the format:
//   #z=<base64url(deflate-raw(JSON))>   compressed (CompressionStream)
//   #j=<base64url(UTF-8 JSON)>          plain, where CompressionStream is missing
//   #example=<path under litmus/>       one of the shipped examples
// The JSON: {"v":1, "file": NAME, "test": TEXT, "model": NAME|null,
//            "model_text": TEXT (only when the model was edited)}.

function toBase64Url(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

async function pipeThrough(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

export const canCompress = () =>
  typeof CompressionStream === 'function' && typeof DecompressionStream === 'function';

// state -> fragment (without '#').
export async function encodeState(state, { compress = canCompress() } = {}) {
  const json = JSON.stringify({ v: 1, ...state });
  const bytes = new TextEncoder().encode(json);
  if (compress) {
    return 'z=' + toBase64Url(await pipeThrough(bytes, new CompressionStream('deflate-raw')));
  }
  return 'j=' + toBase64Url(bytes);
}

// fragment (with or without '#') -> {kind: 'state', state} | {kind: 'example',
// path} | null. Throws an Error with a readable message on a damaged link.
export async function decodeFragment(fragment) {
  const frag = fragment.replace(/^#/, '');
  if (!frag) return null;
  const eq = frag.indexOf('=');
  const key = frag.slice(0, eq);
  const value = frag.slice(eq + 1);
  if (key === 'example') return { kind: 'example', path: decodeURIComponent(value) };
  if (key !== 'z' && key !== 'j') return null;
  let bytes;
  try {
    bytes = fromBase64Url(value);
    if (key === 'z') {
      if (!canCompress()) throw new Error('this browser cannot decompress (no DecompressionStream)');
      try {
        bytes = await pipeThrough(bytes, new DecompressionStream('deflate-raw'));
      } catch (e) {
        throw new Error('its data is not DEFLATE-compressed: cut short or altered?');
      }
    }
    const state = JSON.parse(new TextDecoder().decode(bytes));
    if (typeof state.test !== 'string') throw new Error('no test in it');
    return { kind: 'state', state };
  } catch (e) {
    throw new Error(`the share link is damaged (${e.message})`);
  }
}
