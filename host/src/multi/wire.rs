//! Values as the bytes that travel between the ranks of a job: arrays of
//! `DeviceCopy` elements byte for byte, single `Shuffle` values (a user
//! operator's totals) word by word through [`Shuffle::map_words`].

use coop::{DeviceCopy, Shuffle};

/// The bytes of `values`.
pub(super) fn bytes_of<T: DeviceCopy>(values: &[T]) -> Vec<u8> {
    // SAFETY: a `DeviceCopy` type has no padding (its derive checks it, a
    // hand implementation promises it), so every byte of the slice is
    // initialised.
    unsafe {
        std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
    }
    .to_vec()
}

/// The values whose bytes are `bytes` (made by [`bytes_of`] for the same
/// type on another rank; the collective checked the type's name), or
/// `None` when the length is not a whole number of elements.
pub(super) fn values_of<T: DeviceCopy>(bytes: &[u8]) -> Option<Vec<T>> {
    let size = std::mem::size_of::<T>();
    if size == 0 || !bytes.len().is_multiple_of(size) {
        return None;
    }
    let count = bytes.len() / size;
    let mut values = Vec::<T>::with_capacity(count);
    // SAFETY: the vector has room for `count` elements, which the copy
    // fills entirely; any byte pattern a device may write is a valid
    // `DeviceCopy` value (the trait's promise), and these bytes are such
    // values' bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            values.as_mut_ptr().cast::<u8>(),
            bytes.len(),
        );
        values.set_len(count);
    }
    Some(values)
}

/// The words of `value`, little-endian.
pub(super) fn words_of<T: Shuffle>(value: T) -> Vec<u8> {
    let mut out = Vec::with_capacity(T::WORDS * 4);
    value.map_words(|word| {
        out.extend_from_slice(&word.to_le_bytes());
        word
    });
    out
}

/// The value whose words are `bytes` (made by [`words_of`] for the same
/// type on another rank), rebuilt from `like`, a value of the type; `None`
/// when the length is not the type's.
pub(super) fn value_of<T: Shuffle>(like: T, bytes: &[u8]) -> Option<T> {
    if bytes.len() != T::WORDS * 4 {
        return None;
    }
    let mut words = bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes")));
    Some(like.map_words(|_| words.next().unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back_as_they_went() {
        let values = [1.5f64, -2.25, f64::MAX];
        assert_eq!(values_of::<f64>(&bytes_of(&values)).unwrap(), values);
        assert!(values_of::<u32>(&[1, 2, 3]).is_none());
        assert_eq!(value_of(0i64, &words_of(-7i64)), Some(-7));
        assert_eq!(
            value_of([0u8; 4], &words_of([1u8, 2, 3, 4])),
            Some([1, 2, 3, 4])
        );
        assert!(value_of(0u32, &[0; 8]).is_none());
    }
}
