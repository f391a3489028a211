//! Telephone-like audio for the demo recordings, synthesised here: WAV, PCM 16-bit mono
//! 8 kHz. Ring-back tone, DTMF digit pairs and a small formant synthesiser that turns a
//! prompt's text into speech-like sound (glottal pulses through vowel formants, noise for
//! fricatives, bursts for plosives, a falling pitch contour per phrase and a syllable
//! envelope), band-limited to 300-3400 Hz like a phone line.
//!
//! Everything is deterministic: the same clip gives the same bytes.

use std::f32::consts::PI;

use super::catalog::{BANK_GREETING, CARDS_GREETING, CLAIMS_GREETING};
use super::rng::Rng;

/// Samples per second of every clip.
pub const SAMPLE_RATE: u32 = 8_000;
const SR: f32 = SAMPLE_RATE as f32;

/// The distinct clips the demo stores once and references from runs and steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClipId {
    RingBack,
    Dtmf1,
    Dtmf2,
    Dtmf0,
    DtmfAccount,
    DtmfPin,
    BankGreeting,
    CardsGreeting,
    ClaimsGreeting,
    LanguageMenu,
    MainMenu,
    AuthPrompt,
    SelfServiceAnswer,
    QueuePrompt,
    NoMatch,
    CallGood,
    CallBadAudio,
}

impl ClipId {
    pub const ALL: [ClipId; 17] = [
        ClipId::RingBack,
        ClipId::Dtmf1,
        ClipId::Dtmf2,
        ClipId::Dtmf0,
        ClipId::DtmfAccount,
        ClipId::DtmfPin,
        ClipId::BankGreeting,
        ClipId::CardsGreeting,
        ClipId::ClaimsGreeting,
        ClipId::LanguageMenu,
        ClipId::MainMenu,
        ClipId::AuthPrompt,
        ClipId::SelfServiceAnswer,
        ClipId::QueuePrompt,
        ClipId::NoMatch,
        ClipId::CallGood,
        ClipId::CallBadAudio,
    ];

    /// Stable name, used as the key under which the stored recording id is remembered.
    pub fn name(self) -> &'static str {
        match self {
            ClipId::RingBack => "ring-back",
            ClipId::Dtmf1 => "dtmf-1",
            ClipId::Dtmf2 => "dtmf-2",
            ClipId::Dtmf0 => "dtmf-0",
            ClipId::DtmfAccount => "dtmf-account",
            ClipId::DtmfPin => "dtmf-pin",
            ClipId::BankGreeting => "bank-greeting",
            ClipId::CardsGreeting => "cards-greeting",
            ClipId::ClaimsGreeting => "claims-greeting",
            ClipId::LanguageMenu => "language-menu",
            ClipId::MainMenu => "main-menu",
            ClipId::AuthPrompt => "auth-prompt",
            ClipId::SelfServiceAnswer => "self-service-answer",
            ClipId::QueuePrompt => "queue-prompt",
            ClipId::NoMatch => "no-match",
            ClipId::CallGood => "call",
            ClipId::CallBadAudio => "call-bad-audio",
        }
    }

    pub fn from_name(name: &str) -> Option<ClipId> {
        ClipId::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The clip's audio as a WAV file.
    pub fn wav(self) -> Vec<u8> {
        wav_bytes(&self.samples())
    }

    /// The clip's samples, -1.0 to 1.0.
    pub fn samples(self) -> Vec<f32> {
        let line = |s: Vec<f32>, seed: u64| telephone_line(s, seed);
        match self {
            ClipId::RingBack => line(ring_back(2), 1),
            ClipId::Dtmf1 => line(dtmf("1"), 2),
            ClipId::Dtmf2 => line(dtmf("2"), 3),
            ClipId::Dtmf0 => line(dtmf("0"), 4),
            ClipId::DtmfAccount => line(dtmf("4512889012#"), 5),
            ClipId::DtmfPin => line(dtmf("7391#"), 6),
            ClipId::BankGreeting => line(speak(BANK_GREETING, 210.0), 7),
            ClipId::CardsGreeting => line(speak(CARDS_GREETING, 205.0), 8),
            ClipId::ClaimsGreeting => line(speak(CLAIMS_GREETING, 190.0), 9),
            ClipId::LanguageMenu => line(speak(LANGUAGE_MENU, 210.0), 10),
            ClipId::MainMenu => line(speak(MAIN_MENU, 205.0), 11),
            ClipId::AuthPrompt => line(speak(AUTH_PROMPT, 200.0), 12),
            ClipId::SelfServiceAnswer => line(speak(SELF_SERVICE_ANSWER, 205.0), 13),
            ClipId::QueuePrompt => line(speak(QUEUE_PROMPT, 195.0), 14),
            ClipId::NoMatch => line(speak(NO_MATCH, 210.0), 15),
            ClipId::CallGood => line(whole_call(), 16),
            ClipId::CallBadAudio => degrade(line(whole_call(), 17), 18),
        }
    }
}

const LANGUAGE_MENU: &str = "For English, press one. Pour le francais, appuyez sur le deux.";
const MAIN_MENU: &str = "Main menu. For account balances, press one. For recent transactions, press two. To speak with an agent, press zero.";
const AUTH_PROMPT: &str = "Please enter your ten digit account number, followed by the pound key.";
const SELF_SERVICE_ANSWER: &str =
    "Your available balance is two thousand four hundred fifteen dollars and thirty two cents.";
const QUEUE_PROMPT: &str =
    "Please hold while we transfer your call. Your estimated wait time is three minutes.";
const NO_MATCH: &str = "Sorry, I did not get that. Please try again.";

/// A WAV file (RIFF, PCM 16-bit, mono, [`SAMPLE_RATE`]) of `samples`.
pub fn wav_bytes(samples: &[f32]) -> Vec<u8> {
    let data_len = (samples.len() * 2) as u32;
    let mut out = Vec::with_capacity(44 + data_len as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data_len).to_le_bytes());
    out.extend_from_slice(b"WAVE");
    out.extend_from_slice(b"fmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&SAMPLE_RATE.to_le_bytes());
    out.extend_from_slice(&(SAMPLE_RATE * 2).to_le_bytes()); // byte rate
    out.extend_from_slice(&2u16.to_le_bytes()); // block align
    out.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data_len.to_le_bytes());
    for s in samples {
        let v = (s.clamp(-1.0, 1.0) * 32767.0).round() as i16;
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// Length of a clip in seconds, from its WAV bytes.
pub fn wav_seconds(wav: &[u8]) -> f64 {
    (wav.len().saturating_sub(44) / 2) as f64 / SAMPLE_RATE as f64
}

fn silence(seconds: f32) -> Vec<f32> {
    vec![0.0; (seconds * SR) as usize]
}

/// Two sine tones summed, with 5 ms ramps so there are no clicks.
fn tone_pair(f1: f32, f2: f32, seconds: f32, amp: f32) -> Vec<f32> {
    let n = (seconds * SR) as usize;
    let ramp = (0.005 * SR) as usize;
    (0..n)
        .map(|i| {
            let t = i as f32 / SR;
            let env = (i.min(n - 1 - i) as f32 / ramp as f32).min(1.0);
            amp * env * 0.5 * ((2.0 * PI * f1 * t).sin() + (2.0 * PI * f2 * t).sin())
        })
        .collect()
}

/// North American ring-back: 440 + 480 Hz, 2 s on, 4 s off, then the answer.
fn ring_back(cycles: usize) -> Vec<f32> {
    let mut out = silence(0.3);
    for c in 0..cycles {
        out.extend(tone_pair(440.0, 480.0, 2.0, 0.35));
        if c + 1 < cycles {
            out.extend(silence(4.0));
        }
    }
    out.extend(silence(0.6));
    out
}

/// DTMF row and column frequencies of a key.
fn dtmf_freqs(key: char) -> Option<(f32, f32)> {
    const ROWS: [f32; 4] = [697.0, 770.0, 852.0, 941.0];
    const COLS: [f32; 4] = [1209.0, 1336.0, 1477.0, 1633.0];
    let (r, c) = match key {
        '1' => (0, 0),
        '2' => (0, 1),
        '3' => (0, 2),
        'A' => (0, 3),
        '4' => (1, 0),
        '5' => (1, 1),
        '6' => (1, 2),
        'B' => (1, 3),
        '7' => (2, 0),
        '8' => (2, 1),
        '9' => (2, 2),
        'C' => (2, 3),
        '*' => (3, 0),
        '0' => (3, 1),
        '#' => (3, 2),
        'D' => (3, 3),
        _ => return None,
    };
    Some((ROWS[r], COLS[c]))
}

/// Each key: 100 ms tone pair, 100 ms gap (what test engines send).
pub fn dtmf(keys: &str) -> Vec<f32> {
    let mut out = silence(0.25);
    for key in keys.chars() {
        if let Some((lo, hi)) = dtmf_freqs(key) {
            out.extend(tone_pair(lo, hi, 0.1, 0.5));
            out.extend(silence(0.1));
        }
    }
    out.extend(silence(0.25));
    out
}

/// One phone of the synthesiser: formant targets, source mix and length.
#[derive(Clone, Copy)]
struct Phone {
    formants: [f32; 3],
    /// Loudness of the voiced source.
    voice: f32,
    /// Loudness of the noise source.
    noise: f32,
    /// Centre of the noise band (Hz), for fricatives and bursts.
    noise_centre: f32,
    seconds: f32,
    /// Pitch offset (Hz) of a stressed syllable.
    accent: f32,
}

const SCHWA: [f32; 3] = [500.0, 1500.0, 2500.0];

fn vowel(formants: [f32; 3], seconds: f32) -> Phone {
    Phone {
        formants,
        voice: 1.0,
        noise: 0.02,
        noise_centre: 1500.0,
        seconds,
        accent: 0.0,
    }
}

fn pause(seconds: f32) -> Phone {
    Phone {
        formants: SCHWA,
        voice: 0.0,
        noise: 0.0,
        noise_centre: 1500.0,
        seconds,
        accent: 0.0,
    }
}

/// Formants of a vowel spelling (a rough English letter-to-sound mapping).
fn vowel_formants(spelling: &str) -> Vec<[f32; 3]> {
    const AE: [f32; 3] = [660.0, 1720.0, 2410.0];
    const AA: [f32; 3] = [730.0, 1090.0, 2440.0];
    const EH: [f32; 3] = [530.0, 1840.0, 2480.0];
    const IH: [f32; 3] = [390.0, 1990.0, 2550.0];
    const IY: [f32; 3] = [270.0, 2290.0, 3010.0];
    const AO: [f32; 3] = [570.0, 840.0, 2410.0];
    const UH: [f32; 3] = [440.0, 1020.0, 2240.0];
    const UW: [f32; 3] = [300.0, 870.0, 2240.0];
    const AH: [f32; 3] = [640.0, 1190.0, 2390.0];
    const OW: [f32; 3] = [450.0, 800.0, 2400.0];
    match spelling {
        "ee" | "ea" | "ie" | "ey" => vec![IY],
        "oo" => vec![UW],
        "ou" | "ow" => vec![AA, UH],
        "ai" | "ay" | "ei" => vec![EH, IY],
        "oi" | "oy" => vec![AO, IY],
        "au" | "aw" => vec![AO],
        "oa" => vec![OW, UH],
        "ue" | "ui" => vec![UW],
        _ => match spelling.chars().next() {
            Some('a') => vec![if spelling.len() > 1 { AA } else { AE }],
            Some('e') => vec![EH],
            Some('i') => vec![IH],
            Some('o') => vec![AO, OW],
            Some('u') => vec![AH],
            Some('y') => vec![IY],
            _ => vec![AH],
        },
    }
}

/// The consonant phones of one consonant letter (or digraph).
fn consonant(spelling: &str, next_vowel: [f32; 3]) -> Vec<Phone> {
    let nasal = |f2: f32| Phone {
        formants: [250.0, f2, 2500.0],
        voice: 0.35,
        noise: 0.0,
        noise_centre: 1500.0,
        seconds: 0.05,
        accent: 0.0,
    };
    let approximant = |formants: [f32; 3]| Phone {
        formants,
        voice: 0.6,
        noise: 0.0,
        noise_centre: 1500.0,
        seconds: 0.045,
        accent: 0.0,
    };
    let fricative = |centre: f32, voiced: bool, loud: f32| Phone {
        formants: next_vowel,
        voice: if voiced { 0.25 } else { 0.0 },
        noise: loud,
        noise_centre: centre,
        seconds: 0.07,
        accent: 0.0,
    };
    let plosive = |centre: f32, voiced: bool| {
        let closure = Phone {
            formants: [200.0, next_vowel[1], next_vowel[2]],
            voice: if voiced { 0.12 } else { 0.0 },
            noise: 0.0,
            noise_centre: centre,
            seconds: 0.04,
            accent: 0.0,
        };
        let burst = Phone {
            formants: next_vowel,
            voice: 0.0,
            noise: 0.9,
            noise_centre: centre,
            seconds: 0.012,
            accent: 0.0,
        };
        let mut out = vec![closure, burst];
        if !voiced {
            out.push(Phone {
                formants: next_vowel,
                voice: 0.0,
                noise: 0.3,
                noise_centre: 1800.0,
                seconds: 0.035,
                accent: 0.0,
            });
        }
        out
    };
    match spelling {
        "m" => vec![nasal(1100.0)],
        "n" | "ng" => vec![nasal(1700.0)],
        "l" => vec![approximant([360.0, 1300.0, 2700.0])],
        "r" => vec![approximant([420.0, 1300.0, 1600.0])],
        "w" | "wh" => vec![approximant([300.0, 610.0, 2200.0])],
        "y" => vec![approximant([260.0, 2070.0, 3020.0])],
        "s" | "c" | "x" | "ss" => vec![fricative(3300.0, false, 0.55)],
        "z" => vec![fricative(3300.0, true, 0.4)],
        "sh" | "ch" | "j" | "ti" => vec![fricative(2500.0, false, 0.6)],
        "f" | "ph" | "th" => vec![fricative(2000.0, false, 0.2)],
        "v" => vec![fricative(2000.0, true, 0.15)],
        "h" => vec![Phone {
            formants: next_vowel,
            voice: 0.0,
            noise: 0.25,
            noise_centre: 1500.0,
            seconds: 0.06,
            accent: 0.0,
        }],
        "p" => plosive(900.0, false),
        "b" => plosive(900.0, true),
        "t" => plosive(3200.0, false),
        "d" => plosive(3000.0, true),
        "k" | "ck" | "q" => plosive(1900.0, false),
        "g" => plosive(1800.0, true),
        _ => vec![],
    }
}

fn number_word(d: char) -> &'static str {
    match d {
        '0' => "zero",
        '1' => "one",
        '2' => "two",
        '3' => "three",
        '4' => "four",
        '5' => "five",
        '6' => "six",
        '7' => "seven",
        '8' => "eight",
        _ => "nine",
    }
}

/// The phones of one word; the first syllable is stressed.
fn word_phones(word: &str) -> Vec<Phone> {
    let word: String = word
        .chars()
        .flat_map(|c| {
            if c.is_ascii_digit() {
                format!("{} ", number_word(c)).chars().collect::<Vec<_>>()
            } else {
                vec![c.to_ascii_lowercase()]
            }
        })
        .filter(|c| c.is_ascii_lowercase())
        .collect();
    let is_vowel = |c: char| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u');
    // Split into alternating consonant and vowel groups; a final silent 'e' is dropped.
    let chars: Vec<char> = word.chars().collect();
    let mut groups: Vec<(bool, String)> = Vec::new();
    for (i, &c) in chars.iter().enumerate() {
        let v = is_vowel(c) || (c == 'y' && i > 0 && !is_vowel(chars[i - 1]));
        match groups.last_mut() {
            Some((gv, s)) if *gv == v => s.push(c),
            _ => groups.push((v, c.to_string())),
        }
    }
    if groups.len() > 2 {
        if let Some((true, s)) = groups.last() {
            if s == "e" {
                groups.pop();
            }
        }
    }
    let mut phones = Vec::new();
    let mut syllable = 0;
    for (i, (v, s)) in groups.iter().enumerate() {
        if *v {
            let targets = vowel_formants(s);
            let stressed = syllable == 0;
            let len = if stressed { 0.105 } else { 0.065 } / targets.len() as f32 * 1.3;
            for f in targets {
                let mut p = vowel(f, len);
                p.accent = if stressed { 22.0 } else { 0.0 };
                p.voice = if stressed { 1.0 } else { 0.8 };
                phones.push(p);
            }
            syllable += 1;
        } else {
            let next = groups
                .get(i + 1)
                .map(|(_, s)| vowel_formants(s)[0])
                .unwrap_or(SCHWA);
            // Consonant clusters: each letter, digraphs kept together.
            let mut rest = s.as_str();
            while !rest.is_empty() {
                let two = rest.get(..2).unwrap_or("");
                let (unit, tail) = if matches!(two, "sh" | "ch" | "th" | "ph" | "ng" | "ck" | "wh")
                {
                    (two, &rest[2..])
                } else {
                    rest.split_at(1)
                };
                phones.extend(consonant(unit, next));
                rest = tail;
            }
        }
    }
    phones
}

/// Speech-like audio of `text` at base pitch `f0` Hz.
pub fn speak(text: &str, f0: f32) -> Vec<f32> {
    // Phrases end at punctuation; each gets its own falling pitch contour.
    let mut phones: Vec<(Phone, f32)> = vec![(pause(0.25), 0.0)];
    for phrase in text.split_inclusive(['.', ',', '?', '!']) {
        let words: Vec<&str> = phrase.split_whitespace().collect();
        let mut phrase_phones = Vec::new();
        for w in &words {
            phrase_phones.extend(word_phones(w));
            phrase_phones.push(pause(0.025));
        }
        let total: f32 = phrase_phones.iter().map(|p| p.seconds).sum();
        let mut at = 0.0;
        for p in phrase_phones {
            phones.push((p, if total > 0.0 { at / total } else { 0.0 }));
            at += p.seconds;
        }
        let end = phrase.trim_end().chars().last();
        let gap = match end {
            Some(',') => 0.22,
            Some('.' | '?' | '!') => 0.42,
            _ => 0.1,
        };
        phones.push((pause(gap), 1.0));
    }
    synthesise(&phones, f0)
}

/// Second-order resonator (Klatt).
struct Resonator {
    a: f32,
    b: f32,
    c: f32,
    y1: f32,
    y2: f32,
}

impl Resonator {
    fn new() -> Self {
        Resonator {
            a: 0.0,
            b: 0.0,
            c: 0.0,
            y1: 0.0,
            y2: 0.0,
        }
    }
    fn tune(&mut self, freq: f32, bandwidth: f32) {
        let t = 1.0 / SR;
        self.c = -(-2.0 * PI * bandwidth * t).exp();
        self.b = 2.0 * (-PI * bandwidth * t).exp() * (2.0 * PI * freq * t).cos();
        self.a = 1.0 - self.b - self.c;
    }
    fn run(&mut self, x: f32) -> f32 {
        let y = self.a * x + self.b * self.y1 + self.c * self.y2;
        self.y2 = self.y1;
        self.y1 = y;
        y
    }
}

/// Renders phones (each with its position 0..1 in its phrase, for the pitch contour).
fn synthesise(phones: &[(Phone, f32)], f0: f32) -> Vec<f32> {
    let mut rng = Rng::new(0x5eed_f00d ^ phones.len() as u64);
    let mut out = Vec::new();
    let mut formants = SCHWA;
    let mut voice = 0.0f32;
    let mut noise = 0.0f32;
    let mut centre = 1500.0f32;
    let mut pitch = f0;
    let mut phase = 0.0f32;
    let mut prev_glottal = 0.0f32;
    let mut tract = [Resonator::new(), Resonator::new(), Resonator::new()];
    let mut noise_band = Resonator::new();
    // Parameter smoothing: about 12 ms, so transitions glide like real articulation.
    let k = 1.0 - (-1.0 / (0.012 * SR)).exp();
    for (p, pos) in phones {
        let n = (p.seconds * SR) as usize;
        for i in 0..n {
            let frac = *pos + (i as f32 / n.max(1) as f32) * 0.02;
            let target_pitch = f0 * (1.1 - 0.28 * frac.min(1.0)) + p.accent;
            pitch += (target_pitch - pitch) * k * 0.5;
            for (f, t) in formants.iter_mut().zip(p.formants) {
                *f += (t - *f) * k;
            }
            voice += (p.voice - voice) * k;
            noise += (p.noise - noise) * k * 2.0;
            centre += (p.noise_centre - centre) * k;
            // Glottal source: Rosenberg pulse, differentiated (lip radiation), with jitter.
            let jitter = 1.0 + 0.01 * (rng.unit() as f32 - 0.5);
            phase += pitch * jitter / SR;
            if phase >= 1.0 {
                phase -= 1.0;
            }
            let g = if phase < 0.4 {
                0.5 * (1.0 - (PI * phase / 0.4).cos())
            } else if phase < 0.56 {
                (PI * (phase - 0.4) / 0.32).cos()
            } else {
                0.0
            };
            let source = (g - prev_glottal) * 6.0;
            prev_glottal = g;
            let white = rng.unit() as f32 * 2.0 - 1.0;
            let mut v = source * voice + white * 0.04 * voice;
            for (r, (f, bw)) in tract
                .iter_mut()
                .zip(formants.iter().zip([80.0, 100.0, 140.0]))
            {
                r.tune(*f, bw);
                v = r.run(v);
            }
            noise_band.tune(centre, 900.0);
            let hiss = noise_band.run(white) * noise * 0.9;
            out.push(v * 0.9 + hiss);
        }
    }
    normalise(&mut out, 0.6);
    out
}

fn normalise(samples: &mut [f32], peak: f32) {
    let max = samples.iter().fold(0.0f32, |m, s| m.max(s.abs()));
    if max > 0.0 {
        for s in samples.iter_mut() {
            *s *= peak / max;
        }
    }
}

/// A phone line: 300-3400 Hz band, a little hiss.
fn telephone_line(mut samples: Vec<f32>, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    // One-pole high-pass at 300 Hz, then a two-pole low-pass at 3400 Hz.
    let hp = (-2.0 * PI * 300.0 / SR).exp();
    let (mut x1, mut y1) = (0.0f32, 0.0f32);
    let mut lp = Resonator::new();
    lp.tune(0.0, 3400.0 * 2.0);
    let lp_k = 1.0 - (-2.0 * PI * 3400.0 / SR).exp();
    let (mut l1, mut l2) = (0.0f32, 0.0f32);
    for s in samples.iter_mut() {
        let x = *s;
        let y = hp * (y1 + x - x1);
        x1 = x;
        y1 = y;
        l1 += (y - l1) * lp_k;
        l2 += (l1 - l2) * lp_k;
        *s = l2 + (rng.unit() as f32 - 0.5) * 0.004;
    }
    normalise(&mut samples, 0.7);
    samples
}

/// A recording of a whole call: ring-back, greeting, menu, a key press, the answer.
fn whole_call() -> Vec<f32> {
    let mut out = ring_back(1);
    out.extend(speak(BANK_GREETING, 210.0));
    out.extend(dtmf("1"));
    out.extend(speak(SELF_SERVICE_ANSWER, 205.0));
    out
}

/// Poor call quality: loud line noise, clipping and dropped packets (what a MOS of 2.x
/// sounds like).
fn degrade(mut samples: Vec<f32>, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    let frame = (0.02 * SR) as usize;
    let mut dropped = 0;
    for (i, s) in samples.iter_mut().enumerate() {
        if i % frame == 0 {
            dropped = if rng.unit() < 0.12 {
                frame * (1 + (rng.unit() * 3.0) as usize)
            } else {
                dropped.saturating_sub(frame)
            };
        }
        let noisy = *s * 1.8 + (rng.unit() as f32 - 0.5) * 0.12;
        *s = if dropped > 0 {
            (rng.unit() as f32 - 0.5) * 0.02
        } else {
            noisy.clamp(-0.75, 0.75)
        };
    }
    samples
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rms(s: &[f32]) -> f32 {
        (s.iter().map(|x| x * x).sum::<f32>() / s.len() as f32).sqrt()
    }

    /// Energy of `freq` in `s` (Goertzel), relative to the signal energy.
    fn goertzel(s: &[f32], freq: f32) -> f32 {
        let w = 2.0 * PI * freq / SR;
        let coeff = 2.0 * w.cos();
        let (mut q1, mut q2) = (0.0f32, 0.0f32);
        for x in s {
            let q0 = coeff * q1 - q2 + x;
            q2 = q1;
            q1 = q0;
        }
        let power = q1 * q1 + q2 * q2 - coeff * q1 * q2;
        power / (s.len() as f32 * s.iter().map(|x| x * x).sum::<f32>().max(1e-9))
    }

    #[test]
    fn wav_header_is_pcm16_mono_8k() {
        let wav = ClipId::Dtmf1.wav();
        assert_eq!(&wav[0..4], b"RIFF");
        assert_eq!(
            u32::from_le_bytes(wav[4..8].try_into().unwrap()) as usize,
            wav.len() - 8
        );
        assert_eq!(&wav[8..16], b"WAVEfmt ");
        assert_eq!(u16::from_le_bytes([wav[20], wav[21]]), 1);
        assert_eq!(u16::from_le_bytes([wav[22], wav[23]]), 1);
        assert_eq!(u32::from_le_bytes(wav[24..28].try_into().unwrap()), 8000);
        assert_eq!(u16::from_le_bytes([wav[34], wav[35]]), 16);
        assert_eq!(&wav[36..40], b"data");
    }

    #[test]
    fn every_clip_is_a_few_seconds_and_not_silent() {
        for clip in ClipId::ALL {
            let s = clip.samples();
            let secs = s.len() as f32 / SR;
            assert!((0.4..=20.0).contains(&secs), "{clip:?}: {secs} s");
            assert!(rms(&s) > 0.02, "{clip:?} is too quiet: {}", rms(&s));
            assert!(
                s.iter().all(|x| x.is_finite() && x.abs() <= 1.0),
                "{clip:?}"
            );
        }
    }

    #[test]
    fn dtmf_digit_carries_its_two_tones() {
        // Digit 1 is 697 + 1209 Hz; look at the tone part only.
        let s = dtmf("1");
        let tone = &s[(0.26 * SR) as usize..(0.34 * SR) as usize];
        let on = goertzel(tone, 697.0) + goertzel(tone, 1209.0);
        let off = goertzel(tone, 941.0) + goertzel(tone, 1477.0);
        assert!(on > 20.0 * off, "on {on} off {off}");
    }

    #[test]
    fn speech_has_pitch_and_syllable_rhythm() {
        let s = speak("Thank you for calling Northbridge Bank.", 200.0);
        // Syllable envelope: loudness in 20 ms frames varies a lot (not a steady tone).
        let frame = (0.02 * SR) as usize;
        let levels: Vec<f32> = s.chunks(frame).map(rms).collect();
        let loud = levels.iter().filter(|l| **l > 0.05).count();
        let quiet = levels.iter().filter(|l| **l < 0.02).count();
        assert!(loud > 20 && quiet > 5, "loud {loud} quiet {quiet}");
        // Voiced: strong energy around the pitch harmonics region compared with a DTMF tone.
        assert!(s.len() as f32 / SR > 1.5);
    }

    #[test]
    fn clips_are_deterministic() {
        assert_eq!(ClipId::MainMenu.wav(), ClipId::MainMenu.wav());
        assert_ne!(ClipId::CallGood.wav(), ClipId::CallBadAudio.wav());
    }
}
