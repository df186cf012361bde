//! The kernel's huge page sizes, for `SHMEM_SYMMETRIC_HEAP_PAGE_SIZE`: one
//! directory `hugepages-<kB>kB` per size under [`SYSFS`].

use super::human_bytes;

/// Where the kernel lists its huge page sizes and their counts.
pub(crate) const SYSFS: &str = "/sys/kernel/mm/hugepages";

/// The huge page sizes of this kernel, in bytes, smallest first (empty
/// without hugetlb support).
pub(crate) fn kernel_sizes() -> Vec<usize> {
    let mut sizes: Vec<usize> = std::fs::read_dir(SYSFS)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| size_of_dir(&e.file_name().to_string_lossy()))
                .collect()
        })
        .unwrap_or_default();
    sizes.sort_unstable();
    sizes
}

/// The page size a `hugepages-<kB>kB` directory is for.
pub(crate) fn size_of_dir(name: &str) -> Option<usize> {
    let kb: usize = name.strip_prefix("hugepages-")?.strip_suffix("kB")?.parse().ok()?;
    kb.checked_mul(1024)
}

/// The directory of page size `size` under [`SYSFS`].
pub(crate) fn dir_of_size(size: usize) -> String {
    format!("{SYSFS}/hugepages-{}kB", size / 1024)
}

/// `size` as a huge page size: one of `kernel`'s.
pub(crate) fn check_page_size(size: usize, kernel: &[usize]) -> Result<(), String> {
    if kernel.contains(&size) {
        return Ok(());
    }
    let names: Vec<String> = kernel.iter().map(|&s| human_bytes(s as u128)).collect();
    Err(match names.is_empty() {
        true => format!("this kernel has no huge pages ({SYSFS} lists no page size)"),
        false => format!(
            "{} is not a huge page size of this kernel (it has {}; {SYSFS})",
            human_bytes(size as u128),
            names.join(", ")
        ),
    })
}
