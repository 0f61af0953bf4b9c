//! The learned evaluations' weights (`cradle.ai.knowledge.learned`): Python reads each game's model file
//! once and hands its weights over with `ai_set_model`; the knowledges' learned values read
//! them here. A model is linear: a seat's value is weights · features.

use std::sync::RwLock;

/// Learned features per seat: Tigris (`Board::learned_features`), Gheos (`Reading::features`).
pub const TIGRIS_FEATURES: usize = 26;
pub const GHEOS_FEATURES: usize = 30;

static TIGRIS: RwLock<Vec<f64>> = RwLock::new(Vec::new());
static GHEOS: RwLock<Vec<f64>> = RwLock::new(Vec::new());

fn slot(game: &str) -> Result<(&'static RwLock<Vec<f64>>, usize), String> {
    match game {
        "tigris" => Ok((&TIGRIS, TIGRIS_FEATURES)),
        "gheos" => Ok((&GHEOS, GHEOS_FEATURES)),
        _ => Err(format!("no learned model for the game {game:?}")),
    }
}

/// Set `game`'s weights; refused (and nothing changed) unless there is one per feature.
pub fn set(game: &str, weights: &[f64]) -> Result<(), String> {
    let (lock, features) = slot(game)?;
    if weights.len() != features || weights.iter().any(|w| !w.is_finite()) {
        return Err(format!(
            "the {game} model needs {features} finite weights, got {}",
            weights.len()
        ));
    }
    *lock.write().unwrap_or_else(|e| e.into_inner()) = weights.to_vec();
    Ok(())
}

/// `game`'s weights (empty until set).
pub fn weights(game: &str) -> Result<Vec<f64>, String> {
    let (lock, _) = slot(game)?;
    Ok(lock.read().unwrap_or_else(|e| e.into_inner()).clone())
}

/// Each seat's value under `game`'s model, `features(seat)` giving the seat's features.
/// Panics if no model was set: the Python side sets it before any learned search runs.
pub fn values<const N: usize>(
    lock_of: &str,
    players: usize,
    features: impl Fn(usize) -> [f64; N],
) -> Vec<f64> {
    let (lock, _) = slot(lock_of).expect("a game with a learned model");
    let weights = lock.read().unwrap_or_else(|e| e.into_inner());
    assert_eq!(weights.len(), N, "the learned {lock_of} model is not set");
    (0..players)
        .map(|seat| {
            let mut total = 0.0;
            for (w, x) in weights.iter().zip(features(seat)) {
                total += w * x;
            }
            total
        })
        .collect()
}
