//! The google secret adapter's payload, as jans-pycloudlib's `GoogleSecret.get_all` reads it:
//! plain JSON (what it writes today), or an older payload compressed with zlib or xz whose text
//! is `hex(salt)-hex(iv)-hex(ciphertext)`: AES-256-GCM with the key PBKDF2-HMAC-SHA256(passphrase,
//! salt, 1000 rounds, 32 bytes), the plaintext itself xz-compressed JSON (`_maybe_legacy_payload`,
//! `_decrypt`). A wrong passphrase fails the tag: the image logs "Wrong passphrase used." and its
//! wait fails on the empty text.

use ring::aead::{AES_256_GCM, Aad, LessSafeKey, Nonce, UnboundKey};
use std::io::Read;
use std::num::NonZeroU32;

/// PBKDF2 rounds (`hashlib.pbkdf2_hmac("sha256", passphrase, salt, 1000)`).
const ROUNDS: u32 = 1000;
/// The most a decompressed payload may grow to (Secret Manager holds 64 KiB a version).
const LIMIT: u64 = 16 * 1024 * 1024;

/// What a payload holds: the JSON object, or why the image cannot read it (`secret` names it).
pub fn decode(payload: &[u8], passphrase: &str, secret: &str) -> Result<serde_json::Value, String> {
    let unreadable = |why: &str| format!("cannot read secret {secret}: {why}");
    let Some(text) = decompressed(payload) else {
        return serde_json::from_slice(payload).map_err(|_| unreadable("its payload is not JSON"));
    };
    let text = String::from_utf8(text).map_err(|_| unreadable("not UTF-8 text"))?;
    let parts: Option<Vec<Vec<u8>>> = text.split('-').map(unhex).collect();
    let Some(parts) = parts else {
        // Not the encrypted layout (binascii.Error): the text itself is the JSON.
        return serde_json::from_str(&text).map_err(|_| unreadable("its payload is not JSON"));
    };
    let [salt, iv, sealed] = <[Vec<u8>; 3]>::try_from(parts)
        .map_err(|_| unreadable("its encrypted payload is not salt-iv-ciphertext"))?;
    let plain = decrypt(passphrase, &salt, &iv, sealed).ok_or_else(|| {
        format!(
            "cannot decrypt secret {secret} with the passphrase \
             (CN_GOOGLE_SECRET_MANAGER_PASSPHRASE): wrong passphrase (the image logs \"Wrong \
             passphrase used.\")"
        )
    })?;
    let json = xz(&plain).ok_or_else(|| unreadable("its decrypted payload is not xz"))?;
    serde_json::from_slice(&json).map_err(|_| unreadable("its decrypted payload is not JSON"))
}

/// zlib first, then xz, as the image tries them; `None` when the payload is neither.
fn decompressed(payload: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let zlib = flate2::read::ZlibDecoder::new(payload).take(LIMIT);
    if { zlib }.read_to_end(&mut out).is_ok() && !out.is_empty() {
        return Some(out);
    }
    xz(payload)
}

/// An xz stream's content (Python's `lzma.decompress` default format), refused past [`LIMIT`].
fn xz(data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Bounded(Vec::new());
    lzma_rs::xz_decompress(&mut std::io::BufReader::new(data), &mut out).ok()?;
    Some(out.0)
}

/// A sink that refuses to grow past [`LIMIT`] (a small payload can decompress to gigabytes).
struct Bounded(Vec<u8>);

impl std::io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.len() as u64 + buf.len() as u64 > LIMIT {
            return Err(std::io::Error::other("the payload decompresses past the limit"));
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `binascii.unhexlify`: `None` for anything but an even number of hex digits.
fn unhex(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    if bytes.len() % 2 != 0 || bytes.is_empty() {
        return None;
    }
    let digit = |b: u8| (b as char).to_digit(16);
    (bytes.chunks(2))
        .map(|pair| Some((digit(pair[0])? * 16 + digit(pair[1])?) as u8))
        .collect()
}

/// AES-256-GCM with the passphrase's key; `None` when the tag does not match (or the IV is not
/// the 12 bytes AES-GCM takes here).
fn decrypt(passphrase: &str, salt: &[u8], iv: &[u8], mut sealed: Vec<u8>) -> Option<Vec<u8>> {
    let mut key = [0u8; 32];
    let rounds = NonZeroU32::new(ROUNDS)?;
    let algorithm = ring::pbkdf2::PBKDF2_HMAC_SHA256;
    ring::pbkdf2::derive(algorithm, rounds, salt, passphrase.as_bytes(), &mut key);
    let key = LessSafeKey::new(UnboundKey::new(&AES_256_GCM, &key).ok()?);
    let nonce = Nonce::try_assume_unique_for_key(iv).ok()?;
    let plain = key.open_in_place(nonce, Aad::empty(), &mut sealed).ok()?;
    Some(plain.to_vec())
}
