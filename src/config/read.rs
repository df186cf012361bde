//! How a row of the table is read from the environment ([`Reader`]) and how
//! its value is shown by `SHMEM_INFO` ([`Show`]): one method per kind of
//! variable, so that a row names its kind's reader and its bounds only.

use super::{
    BarrierAlgorithm, BcastAlgorithm, CollectAlgorithm, ConfigError, Kind, NbcThread, ReduceAlgorithm, RemoteEngine,
    Setting, Strategy, Var, checked_size, parse_count,
};

/// The environment as the rows see it: every variable under each of its
/// names, and the settings found so far (for `SHMEM_INFO`'s "from").
pub(crate) struct Reader<'a> {
    get: &'a dyn Fn(&str) -> Option<String>,
    /// The variables that were set: the row's name and where it came from.
    pub(super) set: std::cell::RefCell<Vec<(&'static str, Setting)>>,
}

impl<'a> Reader<'a> {
    pub(super) fn new(get: &'a dyn Fn(&str) -> Option<String>) -> Reader<'a> {
        Reader {
            get,
            set: Default::default(),
        }
    }

    /// The value of `v` under its name, else its `SMA_` alias: the name it
    /// was found under (the row's name if none) and the text.
    pub(crate) fn raw(&self, v: &Var) -> (String, Option<String>) {
        let found = std::iter::once(v.name.to_string())
            .chain(v.sma_name())
            .find_map(|n| (self.get)(&n).map(|t| (n, t)));
        match found {
            Some((n, t)) => {
                self.note(v, &n, &t);
                (n, Some(t))
            }
            None => (v.name.to_string(), None),
        }
    }

    fn note(&self, v: &Var, name: &str, text: &str) {
        let mut set = self.set.borrow_mut();
        if !set.iter().any(|(row, _)| *row == v.name) {
            set.push((
                v.name,
                Setting {
                    var: name.to_string(),
                    text: text.to_string(),
                },
            ));
        }
    }

    /// Where `v` was set, if it was.
    pub(crate) fn setting(&self, v: &Var) -> Option<Setting> {
        self.set
            .borrow()
            .iter()
            .find(|(row, _)| *row == v.name)
            .map(|(_, s)| s.clone())
    }

    /// The error for `text` of variable `var`.
    pub(crate) fn err(&self, var: String, text: &str, why: String) -> ConfigError {
        ConfigError {
            var,
            value: text.to_string(),
            why,
        }
    }

    /// [`Kind::Flag`]: on when set, whatever the value.
    pub(crate) fn flag(&self, v: &Var) -> Result<bool, ConfigError> {
        Ok(self.raw(v).1.is_some())
    }

    /// [`Kind::Switch`]: `0` or `1`; unset, on when `SHMEM_DEBUG` is set.
    pub(crate) fn switch(&self, v: &Var) -> Result<bool, ConfigError> {
        let debug = super::VARS
            .iter()
            .find(|d| d.name == "SHMEM_DEBUG")
            .expect("SHMEM_DEBUG is a row");
        self.zero_one_or(v, || self.raw(debug).1.is_some())
    }

    /// [`Kind::Switch`] that `SHMEM_DEBUG` leaves alone: unset, off.
    pub(crate) fn zero_one(&self, v: &Var) -> Result<bool, ConfigError> {
        self.zero_one_or(v, || false)
    }

    /// `0` or `1`; `unset` when the variable is not set.
    fn zero_one_or(&self, v: &Var, unset: impl FnOnce() -> bool) -> Result<bool, ConfigError> {
        let (n, t) = self.raw(v);
        match t.as_deref().map(str::trim) {
            None => Ok(unset()),
            Some("0") => Ok(false),
            Some("1") => Ok(true),
            Some(_) => Err(self.err(n, t.as_deref().unwrap_or(""), "expected 0 or 1".into())),
        }
    }

    /// [`Kind::Size`], at least `min` bytes and still representable once
    /// rounded up to a multiple of `align`. Read under every name of the
    /// variable (its `SMA_` alias, other implementations' names), which must
    /// agree.
    pub(crate) fn size(&self, v: &Var, min: usize, align: usize) -> Result<usize, ConfigError> {
        let (n, t) = self.raw(v);
        let mut set: Vec<Setting> = t.map(|text| Setting { var: n, text }).into_iter().collect();
        set.extend(v.also.iter().filter_map(|&other| {
            (self.get)(other).map(|text| Setting {
                var: other.to_string(),
                text,
            })
        }));
        let mut values = Vec::with_capacity(set.len());
        for s in &set {
            values.push(checked_size(&s.text, min, align).map_err(|why| self.err(s.var.clone(), &s.text, why))?);
        }
        if let (Some(first), Some((i, _))) = (set.first(), values.iter().enumerate().find(|(_, b)| **b != values[0])) {
            let other = &set[i];
            return Err(self.err(
                other.var.clone(),
                &other.text,
                format!(
                    "it names the same setting as {}, which is {:?}, a different size: set only one of them, or both to the same size",
                    first.var, first.text
                ),
            ));
        }
        match set.into_iter().next() {
            Some(s) => {
                self.note(v, &s.var, &s.text);
                Ok(values[0])
            }
            None => Ok(checked_size(v.default, min, align).expect("default is valid")),
        }
    }

    /// [`Kind::Count`] from `min` to `max`; the default when unset.
    pub(crate) fn count(&self, v: &Var, min: usize, max: usize) -> Result<usize, ConfigError> {
        let (n, t) = self.raw(v);
        let text = t.unwrap_or_else(|| v.default.to_string());
        let c = parse_count(&text, max as u64).map_err(|why| self.err(n.clone(), &text, why))? as usize;
        if c < min {
            return Err(self.err(n, &text, format!("must be at least {min}")));
        }
        Ok(c)
    }

    /// [`Kind::Count`] whose default is `auto` (None), at most `max`.
    pub(crate) fn count_or_auto(&self, v: &Var, max: u64) -> Result<Option<u64>, ConfigError> {
        let (n, t) = self.raw(v);
        match t {
            Some(s) if s.trim() == "auto" => Ok(None),
            Some(s) => Ok(Some(
                parse_count(&s, max).map_err(|why| self.err(n, &s, format!("{why} (or 'auto')")))?,
            )),
            None => Ok(None),
        }
    }

    /// [`Kind::Seconds`], checked by `parse`; the default when unset.
    pub(crate) fn seconds(&self, v: &Var, parse: fn(&str) -> Result<f64, String>) -> Result<f64, ConfigError> {
        let (n, t) = self.raw(v);
        match t {
            Some(s) => parse(&s).map_err(|why| self.err(n, &s, why)),
            None => Ok(parse(v.default).expect("default is valid")),
        }
    }

    /// [`Kind::Choice`], parsed by `parse` (which accepts exactly the row's
    /// list, see `names`).
    pub(crate) fn choice<T>(&self, v: &Var, parse: fn(&str) -> Option<T>) -> Result<T, ConfigError> {
        let Kind::Choice(names) = v.kind else {
            unreachable!("{} is a choice", v.name)
        };
        let (n, t) = self.raw(v);
        match t {
            None => Ok(parse(v.default).expect("default is a choice")),
            Some(s) => parse(s.trim()).ok_or_else(|| self.err(n, &s, format!("expected one of: {}", names.join(", ")))),
        }
    }

    /// [`Kind::Path`]: empty is the same as unset.
    pub(crate) fn path(&self, v: &Var) -> Result<Option<String>, ConfigError> {
        Ok(self.raw(v).1.filter(|f| !f.is_empty()))
    }
}

/// A value as `SHMEM_INFO` prints it.
pub(super) trait Show {
    fn show(&self) -> String;
}

macro_rules! show_display {
    ($($t:ty),*) => {$(
        impl Show for $t {
            fn show(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
show_display!(bool, usize, u32, u64, f64);

macro_rules! show_name {
    ($($t:ty),*) => {$(
        impl Show for $t {
            fn show(&self) -> String {
                self.name().to_string()
            }
        }
    )*};
}
show_name!(
    Strategy,
    BarrierAlgorithm,
    BcastAlgorithm,
    ReduceAlgorithm,
    CollectAlgorithm,
    RemoteEngine,
    NbcThread
);

/// `auto` when the library chooses.
impl<T: Show> Show for Option<T> {
    fn show(&self) -> String {
        self.as_ref().map_or("auto".into(), Show::show)
    }
}

/// A file name, `unset` when none.
impl Show for Option<String> {
    fn show(&self) -> String {
        self.clone().unwrap_or_else(|| "unset".into())
    }
}
