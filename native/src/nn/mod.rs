//! A small learned network evaluated natively: a multilayer perceptron over a seat's flat
//! observation (docs/research.md, "The checkpoint format"), read from a safetensors file, so
//! that play needs neither JAX nor PyTorch.
//!
//! The network: `layer0` .. `layer{k-1}` (ReLU after each) make the features of an
//! observation; from them `policy` gives a logit per action id and `value` a logit per seat,
//! seats relative to the one whose observation it is (0: that seat, 1: the next, ...), each
//! seat's value the sigmoid of its logit (its expected rank reward: 1 a 2-player win).
//! Observations are mostly zeros (one-hot planes): the first layer adds the rows of the
//! non-zero inputs only, and the heads are asked for the actions the search scores.
//!
//! - [`leaf`]: the network as the search's [`crate::search::LeafModel`] in each game.

pub mod leaf;

use std::collections::HashMap;

use safetensors::tensor::Dtype;
use safetensors::SafeTensors;

/// The `format` the checkpoint's metadata names.
pub const FORMAT: &str = "cradle-mlp";
/// The format's version this reader knows.
pub const VERSION: &str = "1";
/// The largest checkpoint read (a bound before anything is allocated from its header).
pub const MOST_BYTES: usize = 64 << 20;
/// The most hidden layers and the widest one.
const MOST_LAYERS: usize = 8;
const MOST_WIDTH: usize = 4096;

/// A dense layer, input-major: `weights[i * outputs + j]` joins input i to output j.
#[derive(Clone, Debug)]
struct Dense {
    outputs: usize,
    weights: Vec<f32>,
    bias: Vec<f32>,
}

/// A head, output-major (one row per output, read one output at a time).
#[derive(Clone, Debug)]
struct Head {
    rows: Vec<f32>,
    bias: Vec<f32>,
}

/// The network and what its metadata says.
#[derive(Clone, Debug)]
pub struct Net {
    /// The game it plays (`tigris`, `gheos`) and its player count.
    pub game: String,
    pub players: usize,
    /// Elements of an observation, action ids, features (the last hidden layer's width).
    pub inputs: usize,
    pub actions: usize,
    pub width: usize,
    /// Every metadata entry (the training command, ...).
    pub metadata: HashMap<String, String>,
    layers: Vec<Dense>,
    policy: Head,
    value: Head,
}

/// A tensor of `name` as f32 (stored as F32, F16 or BF16), with its shape.
fn tensor(st: &SafeTensors<'_>, name: &str) -> Result<(Vec<usize>, Vec<f32>), String> {
    let view = st
        .tensor(name)
        .map_err(|_| format!("the checkpoint has no tensor {name:?}"))?;
    let data = view.data();
    let values: Vec<f32> = match view.dtype() {
        Dtype::F32 => data
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
        Dtype::F16 => data
            .chunks_exact(2)
            .map(|b| f16_to_f32(u16::from_le_bytes([b[0], b[1]])))
            .collect(),
        Dtype::BF16 => data
            .chunks_exact(2)
            .map(|b| f32::from_bits(u32::from(u16::from_le_bytes([b[0], b[1]])) << 16))
            .collect(),
        other => {
            return Err(format!(
                "tensor {name:?} is {other:?}: F32, F16 or BF16 only"
            ))
        }
    };
    if values.iter().any(|v| !v.is_finite()) {
        return Err(format!("tensor {name:?} holds a value that is not finite"));
    }
    Ok((view.shape().to_vec(), values))
}

/// An IEEE half-precision number as f32.
fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exponent = u32::from((h >> 10) & 0x1f);
    let mantissa = u32::from(h & 0x3ff);
    let bits = match (exponent, mantissa) {
        (0, 0) => sign,
        (0, m) => {
            // subnormal: m × 2^-24
            let value = m as f32 * (1.0 / (1u32 << 24) as f32);
            return if sign != 0 { -value } else { value };
        }
        (0x1f, m) => sign | 0x7f80_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

fn shaped(
    st: &SafeTensors<'_>,
    name: &str,
    rows: Option<usize>,
    cols: Option<usize>,
) -> Result<(usize, usize, Vec<f32>), String> {
    let (shape, values) = tensor(st, name)?;
    let [r, c] = shape[..] else {
        return Err(format!(
            "tensor {name:?} has shape {shape:?}: 2 dimensions expected"
        ));
    };
    if rows.is_some_and(|n| n != r) || cols.is_some_and(|n| n != c) {
        return Err(format!(
            "tensor {name:?} has shape {shape:?}, not ({}, {})",
            rows.map_or("any".into(), |n| n.to_string()),
            cols.map_or("any".into(), |n| n.to_string())
        ));
    }
    Ok((r, c, values))
}

fn bias(st: &SafeTensors<'_>, name: &str, len: usize) -> Result<Vec<f32>, String> {
    let (shape, values) = tensor(st, name)?;
    if shape != [len] {
        return Err(format!("tensor {name:?} has shape {shape:?}, not ({len},)"));
    }
    Ok(values)
}

/// Rows of an input-major matrix (`inputs` × `outputs`) as output-major ones.
fn transpose(values: &[f32], inputs: usize, outputs: usize) -> Vec<f32> {
    let mut out = vec![0.0; values.len()];
    for i in 0..inputs {
        for j in 0..outputs {
            out[j * inputs + i] = values[i * outputs + j];
        }
    }
    out
}

impl Net {
    /// The network of a checkpoint's bytes, every shape and value checked.
    pub fn from_bytes(bytes: &[u8]) -> Result<Net, String> {
        if bytes.len() > MOST_BYTES {
            return Err(format!(
                "a checkpoint is at most {MOST_BYTES} bytes, this one {}",
                bytes.len()
            ));
        }
        let (_, header) = SafeTensors::read_metadata(bytes)
            .map_err(|e| format!("not a safetensors file: {e}"))?;
        let metadata: HashMap<String, String> = header
            .metadata()
            .clone()
            .unwrap_or_default()
            .into_iter()
            .collect();
        let field = |key: &str| {
            metadata
                .get(key)
                .cloned()
                .ok_or_else(|| format!("the checkpoint's metadata has no {key:?}"))
        };
        if field("format")? != FORMAT || field("version")? != VERSION {
            return Err(format!(
                "the checkpoint is not a {FORMAT} version {VERSION} network"
            ));
        }
        let game = field("game")?;
        let players: usize = field("players")?
            .parse()
            .ok()
            .filter(|n| (2..=4).contains(n))
            .ok_or("the checkpoint's players is 2, 3 or 4")?;
        let st =
            SafeTensors::deserialize(bytes).map_err(|e| format!("not a safetensors file: {e}"))?;
        let mut layers = Vec::new();
        let mut inputs = None;
        while st.tensor(&format!("layer{}.weight", layers.len())).is_ok() {
            if layers.len() == MOST_LAYERS {
                return Err(format!("a network has at most {MOST_LAYERS} hidden layers"));
            }
            let k = layers.len();
            let before = layers.last().map(|d: &Dense| d.outputs);
            let (r, c, weights) = shaped(&st, &format!("layer{k}.weight"), before, None)?;
            if c == 0 || c > MOST_WIDTH {
                return Err(format!("layer {k} is {c} wide: 1 to {MOST_WIDTH}"));
            }
            inputs.get_or_insert(r);
            layers.push(Dense {
                outputs: c,
                weights,
                bias: bias(&st, &format!("layer{k}.bias"), c)?,
            });
        }
        let (Some(inputs), Some(last)) = (inputs, layers.last()) else {
            return Err("the checkpoint has no layer0.weight".into());
        };
        let width = last.outputs;
        let (_, actions, policy) = shaped(&st, "policy.weight", Some(width), None)?;
        let (_, seats, value) = shaped(&st, "value.weight", Some(width), Some(players))?;
        let policy = Head {
            rows: transpose(&policy, width, actions),
            bias: bias(&st, "policy.bias", actions)?,
        };
        let value = Head {
            rows: transpose(&value, width, seats),
            bias: bias(&st, "value.bias", seats)?,
        };
        Ok(Net {
            game,
            players,
            inputs,
            actions,
            width,
            metadata,
            layers,
            policy,
            value,
        })
    }

    /// The features (`width` of them) of `observation` (`inputs` long) into `out`;
    /// `scratch`: the caller's working space (one per thread).
    pub fn features(&self, observation: &[f32], scratch: &mut [Vec<f32>; 2], out: &mut [f32]) {
        assert_eq!(
            observation.len(),
            self.inputs,
            "an observation of the network's width"
        );
        assert_eq!(out.len(), self.width, "features of the network's width");
        for (k, layer) in self.layers.iter().enumerate() {
            let [a, b] = scratch;
            let (target, source) = if k % 2 == 0 { (a, &*b) } else { (b, &*a) };
            let input: &[f32] = if k == 0 { observation } else { source };
            target.clear();
            target.extend_from_slice(&layer.bias);
            for (i, &x) in input.iter().enumerate() {
                if x != 0.0 {
                    let row = &layer.weights[i * layer.outputs..(i + 1) * layer.outputs];
                    for (t, &w) in target.iter_mut().zip(row) {
                        *t += x * w;
                    }
                }
            }
            for t in target.iter_mut() {
                *t = t.max(0.0);
            }
        }
        let last = if self.layers.len() % 2 == 1 {
            &scratch[0]
        } else {
            &scratch[1]
        };
        out.copy_from_slice(last);
    }

    /// The policy's logit of action `id` (below `actions`) from `features`.
    #[inline]
    pub fn logit(&self, features: &[f32], id: u32) -> f32 {
        let i = id as usize;
        let row = &self.policy.rows[i * self.width..(i + 1) * self.width];
        dot(row, features) + self.policy.bias[i]
    }

    /// Each seat's value, relative to the observing seat (`players` of them), from `features`.
    pub fn values(&self, features: &[f32], out: &mut [f64]) {
        for (k, v) in out.iter_mut().enumerate().take(self.players) {
            let row = &self.value.rows[k * self.width..(k + 1) * self.width];
            let logit = f64::from(dot(row, features) + self.value.bias[k]);
            *v = 1.0 / (1.0 + (-logit).exp());
        }
    }
}

#[inline]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Eight lanes summed apart: the compiler keeps them in vector registers.
    let mut lanes = [0.0f32; 8];
    let chunks = a.len() / 8;
    for c in 0..chunks {
        for l in 0..8 {
            lanes[l] += a[c * 8 + l] * b[c * 8 + l];
        }
    }
    let mut total: f32 = lanes.iter().sum();
    for i in chunks * 8..a.len() {
        total += a[i] * b[i];
    }
    total
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use safetensors::tensor::TensorView;

    /// A checkpoint's bytes from (name, shape, f32 values) and the metadata's extra entries.
    pub(crate) fn checkpoint(
        tensors: &[(&str, Vec<usize>, Vec<f32>)],
        game: &str,
        players: usize,
    ) -> Vec<u8> {
        let bytes: Vec<(String, Vec<usize>, Vec<u8>)> = tensors
            .iter()
            .map(|(name, shape, values)| {
                let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
                ((*name).to_string(), shape.clone(), data)
            })
            .collect();
        let views: Vec<(String, TensorView<'_>)> = bytes
            .iter()
            .map(|(name, shape, data)| {
                (
                    name.clone(),
                    TensorView::new(Dtype::F32, shape.clone(), data).expect("a view"),
                )
            })
            .collect();
        let metadata = [
            ("format", FORMAT.to_string()),
            ("version", VERSION.to_string()),
            ("game", game.to_string()),
            ("players", players.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        safetensors::serialize(views, Some(metadata)).expect("serialised")
    }

    /// 3 inputs, one hidden layer of 2, 4 actions, 2 seats.
    fn small() -> Vec<u8> {
        checkpoint(
            &[
                (
                    "layer0.weight",
                    vec![3, 2],
                    vec![1.0, 0.0, 0.0, 1.0, 1.0, -1.0],
                ),
                ("layer0.bias", vec![2], vec![0.0, 0.5]),
                (
                    "policy.weight",
                    vec![2, 4],
                    vec![1.0, 0.0, 2.0, 0.0, 0.0, 1.0, 0.0, 0.0],
                ),
                ("policy.bias", vec![4], vec![0.0, 0.0, 0.0, 0.25]),
                ("value.weight", vec![2, 2], vec![1.0, -1.0, 0.0, 0.0]),
                ("value.bias", vec![2], vec![0.0, 0.0]),
            ],
            "tigris",
            2,
        )
    }

    #[test]
    fn a_small_network_computes_by_hand() {
        let net = Net::from_bytes(&small()).expect("a network");
        assert_eq!(
            (net.inputs, net.actions, net.width, net.players),
            (3, 4, 2, 2)
        );
        let mut scratch: [Vec<f32>; 2] = Default::default();
        let mut h = [0.0; 2];
        // x = (2, 0, 1): h = relu((2 + 1, 0.5 - 1)) = (3, 0)
        net.features(&[2.0, 0.0, 1.0], &mut scratch, &mut h);
        assert_eq!(h, [3.0, 0.0]);
        assert_eq!(net.logit(&h, 0), 3.0);
        assert_eq!(net.logit(&h, 2), 6.0);
        assert_eq!(net.logit(&h, 3), 0.25);
        let mut v = [0.0; 2];
        net.values(&h, &mut v);
        assert!((v[0] - 1.0 / (1.0 + (-3.0f64).exp())).abs() < 1e-7);
        assert!((v[1] - 1.0 / (1.0 + 3.0f64.exp())).abs() < 1e-7);
    }

    #[test]
    fn bad_checkpoints_are_refused_with_a_reason() {
        assert!(Net::from_bytes(b"not a file")
            .unwrap_err()
            .contains("safetensors"));
        let no_head = checkpoint(
            &[
                ("layer0.weight", vec![3, 2], vec![0.0; 6]),
                ("layer0.bias", vec![2], vec![0.0; 2]),
            ],
            "tigris",
            2,
        );
        assert!(Net::from_bytes(&no_head)
            .unwrap_err()
            .contains("policy.weight"));
        let bad_value = checkpoint(
            &[
                ("layer0.weight", vec![3, 2], vec![0.0; 6]),
                ("layer0.bias", vec![2], vec![0.0; 2]),
                ("policy.weight", vec![2, 4], vec![0.0; 8]),
                ("policy.bias", vec![4], vec![0.0; 4]),
                ("value.weight", vec![2, 3], vec![0.0; 6]),
                ("value.bias", vec![3], vec![0.0; 3]),
            ],
            "tigris",
            2,
        );
        assert!(Net::from_bytes(&bad_value)
            .unwrap_err()
            .contains("value.weight"));
        let nan = checkpoint(
            &[
                ("layer0.weight", vec![1, 1], vec![f32::NAN]),
                ("layer0.bias", vec![1], vec![0.0]),
            ],
            "tigris",
            2,
        );
        assert!(Net::from_bytes(&nan).unwrap_err().contains("finite"));
    }

    #[test]
    fn half_precision_reads_as_its_value() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x3555), 0.333_251_95);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x7bff), 65504.0);
        assert!(f16_to_f32(0x7c00).is_infinite());
    }
}
