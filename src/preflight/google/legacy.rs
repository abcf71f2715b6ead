//! The google secret adapter's payload, as jans-pycloudlib's `GoogleSecret.get_all` reads it:
//! plain JSON (what it writes today), or an older payload compressed with zlib or xz whose text
//! is `hex(salt)-hex(iv)-hex(ciphertext)`: AES-256-GCM with the key PBKDF2-HMAC-SHA256(passphrase,
//! salt, 1000 rounds, 32 bytes), the plaintext itself xz-compressed JSON (`_maybe_legacy_payload`,
//! `_decrypt`). A wrong passphrase fails the tag: the image logs "Wrong passphrase used." and its
//! wait fails on the empty text. (pycloudlib's latest `get_all` first tries `json.loads` on the
//! joined bytes and catches only `JSONDecodeError`, so a compressed payload there raises
//! `UnicodeDecodeError` and the wait fails whatever the passphrase; svcgen reads it as the
//! multipart adapter first did. Which of the two the image's pinned jans commit carries was not
//! established.)

use aes::cipher::{BlockCipherEncrypt, KeyInit};
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
        // Unset, the image falls back to a fixed default word the spec does not show.
        let unset = if passphrase.is_empty() {
            "; the profile sets none, and the image's own default word is not known to svcgen"
        } else {
            ""
        };
        format!(
            "cannot decrypt secret {secret} with the passphrase \
             (CN_GOOGLE_SECRET_MANAGER_PASSPHRASE): wrong passphrase (the image logs \"Wrong \
             passphrase used.\"){unset}"
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
            return Err(std::io::Error::other(
                "the payload decompresses past the limit",
            ));
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
    if !bytes.len().is_multiple_of(2) || bytes.is_empty() {
        return None;
    }
    let digit = |b: u8| (b as char).to_digit(16);
    (bytes.chunks(2))
        .map(|pair| Some((digit(pair[0])? * 16 + digit(pair[1])?) as u8))
        .collect()
}

/// AES-256-GCM (NIST SP 800-38D, no associated data) with the passphrase's key and an IV of any
/// length (the image wrote 16 bytes); `None` when the tag does not match.
fn decrypt(passphrase: &str, salt: &[u8], iv: &[u8], sealed: Vec<u8>) -> Option<Vec<u8>> {
    let mut key = [0u8; 32];
    let rounds = NonZeroU32::new(ROUNDS)?;
    let algorithm = ring::pbkdf2::PBKDF2_HMAC_SHA256;
    ring::pbkdf2::derive(algorithm, rounds, salt, passphrase.as_bytes(), &mut key);
    let aes = aes::Aes256::new_from_slice(&key).ok()?;
    let encrypt = |block: u128| {
        let mut bytes = block.to_be_bytes().into();
        aes.encrypt_block(&mut bytes);
        u128::from_be_bytes(bytes.into())
    };
    let h = encrypt(0);
    if sealed.len() < 16 || iv.is_empty() {
        return None;
    }
    let (text, tag) = sealed.split_at(sealed.len() - 16);
    let j0 = if iv.len() == 12 {
        u128::from_be_bytes([iv, &[0, 0, 0, 1]].concat().try_into().ok()?)
    } else {
        ghash(h, &[iv], (0, iv.len()))
    };
    let expected = encrypt(j0) ^ ghash(h, &[text], (0, text.len()));
    if expected.to_be_bytes() != tag {
        return None;
    }
    let mut plain = Vec::with_capacity(text.len());
    for (i, chunk) in text.chunks(16).enumerate() {
        let counter = (j0 & !0xffff_ffff) | u128::from((j0 as u32).wrapping_add(i as u32 + 1));
        let stream = encrypt(counter).to_be_bytes();
        plain.extend(chunk.iter().zip(stream).map(|(c, k)| c ^ k));
    }
    Some(plain)
}

/// GHASH over `parts` (each zero-padded to 16 bytes), then the lengths block (in bits).
fn ghash(h: u128, parts: &[&[u8]], (aad_len, text_len): (usize, usize)) -> u128 {
    let mut y = 0u128;
    for part in parts {
        for chunk in part.chunks(16) {
            let mut block = [0u8; 16];
            block[..chunk.len()].copy_from_slice(chunk);
            y = times(y ^ u128::from_be_bytes(block), h);
        }
    }
    let lengths = ((aad_len as u128 * 8) << 64) | (text_len as u128 * 8);
    times(y ^ lengths, h)
}

/// Multiplication in GCM's GF(2^128) (bit-reflected, R = 0xE1 || 0^120).
fn times(x: u128, y: u128) -> u128 {
    let (mut z, mut v) = (0u128, y);
    for i in 0..128 {
        if (x >> (127 - i)) & 1 == 1 {
            z ^= v;
        }
        v = if v & 1 == 1 {
            (v >> 1) ^ (0xE1 << 120)
        } else {
            v >> 1
        };
    }
    z
}

#[cfg(test)]
mod tests {
    use super::decode;
    use base64::Engine;

    /// `{"ssl_cert": "CERT"}` as the image's older `GoogleSecret` wrote it with the passphrase
    /// `pass-1` (made with Python's `cryptography` AESGCM, a 16-byte IV, lzma and zlib).
    const OLDER: &str = "eJwVj8GNRTEIxCr60hCSIZQDBPovYd/eLVsGIFhQbBwQhgtHIFF4aMyPm4ek8dIZTBYfm2MwsWX6A2ep17gdjbzLS8dUUDkajvG66yO7snaTS07aBCJ49BGYMvMd4WJ59o6bUxk10aYL599HeR8bAmyRhp4VF48iKZsjDJXxVX6y39U4Wvt2twtS+puoZ3jztW/kdxs68PkDWcxCNg==";

    #[test]
    fn an_older_payload_opens_with_its_passphrase_and_names_a_wrong_one() {
        let payload = base64::engine::general_purpose::STANDARD
            .decode(OLDER)
            .unwrap();
        let keys = decode(&payload, "pass-1", "s").unwrap();
        assert_eq!(keys["ssl_cert"], "CERT");
        let wrong = decode(&payload, "pass-2", "s").unwrap_err();
        assert!(
            wrong.starts_with("cannot decrypt secret s with the passphrase"),
            "{wrong}"
        );
        assert!(!wrong.contains("pass-2"));
        assert_eq!(decode(br#"{"a":"b"}"#, "", "s").unwrap()["a"], "b");
        assert!(
            decode(b"\xff\x00", "", "s")
                .unwrap_err()
                .contains("not JSON")
        );
    }
}
