//! What the demo site tests: the IVR applications and chatbots of a fictional financial
//! group (Northbridge), their test cases with call and chat flows (segments of steps, as
//! an IVR test engine scripts them), and the test case groups of the console.
//!
//! Ids are fixed so that a demo data directory keeps its meaning across restarts.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::audio::ClipId;
use crate::domain::run::Channel;

/// An IVR application (voice) or chatbot (web), and its client application health.
#[derive(Debug, Clone)]
pub struct App {
    pub id: i64,
    pub name: &'static str,
    pub channel: Channel,
    /// How the health view names it: the number called or the chat host.
    pub end_point: &'static str,
    /// Number dialled (voice) or widget address (web).
    pub address: &'static str,
    /// Back-end components, and whether each is enabled for testing.
    pub components: &'static [(&'static str, bool, bool)],
    /// Whether the agent leg is tested (disabled: shown grey).
    pub agent_enabled: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    CallConnect,
    Prompt,
    Dtmf,
    Speech,
    Transfer,
    Hangup,
    ChatStart,
    BotMessage,
    UserMessage,
    QuickReply,
    Form,
    Handoff,
}

impl StepKind {
    /// The engine's step type.
    pub fn code(self) -> &'static str {
        match self {
            StepKind::CallConnect => "CALL_CONNECT",
            StepKind::Prompt => "PROMPT",
            StepKind::Dtmf => "DTMF",
            StepKind::Speech => "SPEECH",
            StepKind::Transfer => "TRANSFER",
            StepKind::Hangup => "HANGUP",
            StepKind::ChatStart => "CHAT_START",
            StepKind::BotMessage => "CHAT_MESSAGE",
            StepKind::UserMessage => "CHAT_INPUT",
            StepKind::QuickReply => "QUICK_REPLY",
            StepKind::Form => "FORM_SUBMIT",
            StepKind::Handoff => "LIVE_AGENT_HANDOFF",
        }
    }

    /// How the console names it.
    pub fn display(self) -> &'static str {
        match self {
            StepKind::CallConnect => "Call Connect",
            StepKind::Prompt => "Prompt",
            StepKind::Dtmf => "DTMF Input",
            StepKind::Speech => "Speech Input",
            StepKind::Transfer => "Agent Transfer",
            StepKind::Hangup => "Hang Up",
            StepKind::ChatStart => "Chat Start",
            StepKind::BotMessage => "Bot Message",
            StepKind::UserMessage => "User Message",
            StepKind::QuickReply => "Quick Reply",
            StepKind::Form => "Form Submit",
            StepKind::Handoff => "Live Agent Handoff",
        }
    }

    /// Acceptable latency (min, max), incomplete and complete time-outs, all ms, and the
    /// normal latency range the site sees.
    pub fn timing(self) -> Timing {
        let t = |min, max, incomplete, complete, lo, hi| Timing {
            latency_min: min,
            latency_max: max,
            incomplete_timeout: incomplete,
            complete_timeout: complete,
            normal: (lo, hi),
        };
        match self {
            StepKind::CallConnect => t(0, 8_000, 30_000, None, 2_200, 6_800),
            StepKind::Prompt => t(100, 1_500, 8_000, Some(1_500), 320, 1_150),
            StepKind::Dtmf => t(100, 1_200, 6_000, Some(1_200), 280, 950),
            StepKind::Speech => t(200, 2_000, 7_000, Some(1_500), 550, 1_650),
            StepKind::Transfer => t(500, 3_000, 20_000, Some(2_000), 900, 2_500),
            StepKind::Hangup => t(100, 1_500, 6_000, Some(1_000), 300, 1_000),
            StepKind::ChatStart => t(0, 2_500, 10_000, Some(1_500), 380, 1_800),
            StepKind::BotMessage => t(0, 2_000, 10_000, Some(1_500), 250, 1_300),
            StepKind::UserMessage => t(0, 3_000, 12_000, Some(2_000), 600, 2_300),
            StepKind::QuickReply => t(0, 2_000, 10_000, Some(1_500), 300, 1_400),
            StepKind::Form => t(0, 3_500, 15_000, Some(2_000), 800, 2_700),
            StepKind::Handoff => t(1_000, 6_000, 30_000, Some(3_000), 1_600, 4_800),
        }
    }

    /// The caller (or chat user) answers the prompt with input.
    pub fn has_reply(self) -> bool {
        matches!(
            self,
            StepKind::Dtmf
                | StepKind::Speech
                | StepKind::UserMessage
                | StepKind::QuickReply
                | StepKind::Form
        )
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub latency_min: i64,
    pub latency_max: i64,
    pub incomplete_timeout: i64,
    pub complete_timeout: Option<i64>,
    /// Latency the site normally sees, ms.
    pub normal: (i64, i64),
}

#[derive(Debug, Clone)]
pub struct StepDef {
    pub id: i64,
    pub kind: StepKind,
    /// What the engine expects to hear (voice) or read (web).
    pub prompt: Option<String>,
    /// DTMF keys, phrase said or message typed in answer.
    pub reply: Option<String>,
    /// Audio recorded during the step.
    pub clip: Option<ClipId>,
    /// The caller may press or speak before the prompt ends.
    pub barge_in: bool,
    /// Step-type specific fields.
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone)]
pub struct SegmentDef {
    pub id: i64,
    pub name: String,
    pub steps: Vec<StepDef>,
}

#[derive(Debug, Clone)]
pub struct CaseDef {
    pub id: i64,
    pub name: String,
    /// Index into [`Catalog::apps`].
    pub app: usize,
    pub segments: Vec<SegmentDef>,
}

#[derive(Debug, Clone)]
pub struct GroupDef {
    pub name: &'static str,
    pub channel: Channel,
    pub cases: Vec<i64>,
}

#[derive(Debug, Clone)]
pub struct Catalog {
    pub apps: Vec<App>,
    pub cases: Vec<CaseDef>,
    pub groups: Vec<GroupDef>,
}

impl Catalog {
    pub fn app_by_id(&self, id: i64) -> Option<usize> {
        self.apps.iter().position(|a| a.id == id)
    }
    pub fn case(&self, id: i64) -> Option<&CaseDef> {
        self.cases.iter().find(|c| c.id == id)
    }
}

pub const RETAIL_BANKING: i64 = 101;
pub const CARD_SERVICES: i64 = 102;
pub const INSURANCE_CLAIMS: i64 = 103;
pub const SUPPORT_CHATBOT: i64 = 201;
pub const SALES_CHATBOT: i64 = 202;

/// Segment names the incidents look for.
pub const SEG_CLAIM_REGISTRATION: &str = "Claim Registration";
pub const SEG_INTENT: &str = "Intent Detection";

const APPS: [App; 5] = [
    App {
        id: RETAIL_BANKING,
        name: "Retail Banking IVR",
        channel: Channel::Voice,
        end_point: "RetailBanking-IVR (+1 800 555 0100)",
        address: "+18005550100",
        components: &[
            ("CRM DB", true, true),
            ("Core Banking DB", true, true),
            ("Billing DB", true, true),
        ],
        agent_enabled: true,
    },
    App {
        id: CARD_SERVICES,
        name: "Card Services IVR",
        channel: Channel::Voice,
        end_point: "CardServices-IVR (+1 800 555 0142)",
        address: "+18005550142",
        components: &[
            ("CRM DB", true, true),
            ("Card Platform DB", true, true),
            ("Fraud DB", true, false),
        ],
        agent_enabled: false,
    },
    App {
        id: INSURANCE_CLAIMS,
        name: "Insurance Claims IVR",
        channel: Channel::Voice,
        end_point: "InsuranceClaims-IVR (+1 888 555 0199)",
        address: "+18885550199",
        components: &[
            ("CRM DB", true, true),
            ("Claims DB", true, true),
            ("Policy DB", true, true),
        ],
        agent_enabled: true,
    },
    App {
        id: SUPPORT_CHATBOT,
        name: "Support Chatbot",
        channel: Channel::Web,
        end_point: "support.chat.example.com",
        address: "https://support.chat.example.com/widget",
        components: &[
            ("CRM DB", true, true),
            ("Knowledge Base", true, true),
            ("Order DB", false, false),
        ],
        agent_enabled: true,
    },
    App {
        id: SALES_CHATBOT,
        name: "Sales Chatbot",
        channel: Channel::Web,
        end_point: "sales.chat.example.com",
        address: "https://sales.chat.example.com/widget",
        components: &[
            ("CRM DB", true, true),
            ("Product Catalog DB", true, true),
            ("Lead DB", true, true),
        ],
        agent_enabled: true,
    },
];

// ---- step builders -------------------------------------------------------------------

fn step(
    kind: StepKind,
    prompt: Option<&str>,
    reply: Option<&str>,
    clip: Option<ClipId>,
) -> StepDef {
    StepDef {
        id: 0,
        kind,
        prompt: prompt.map(String::from),
        reply: reply.map(String::from),
        clip,
        barge_in: false,
        extra: Map::new(),
    }
}

fn with(mut s: StepDef, extra: Value) -> StepDef {
    if let Value::Object(m) = extra {
        s.extra.extend(m);
    }
    s
}

fn connect(app: &App) -> StepDef {
    with(
        step(StepKind::CallConnect, None, None, Some(ClipId::RingBack)),
        json!({"dialedNumber": app.address, "callerId": "+14165550123", "trunk": "SIP-TRUNK-A", "codec": "G.711u"}),
    )
}

fn listen(prompt: &str, clip: ClipId) -> StepDef {
    with(
        step(StepKind::Prompt, Some(prompt), None, Some(clip)),
        json!({"matchMode": "fuzzy", "matchThreshold": 0.8}),
    )
}

fn press(prompt: &str, keys: &str, clip: ClipId) -> StepDef {
    let masked = keys.len() == 5 && clip == ClipId::DtmfPin;
    let shown = if masked {
        "****#".to_string()
    } else {
        keys.to_string()
    };
    let mut s = with(
        step(StepKind::Dtmf, Some(prompt), Some(&shown), Some(clip)),
        json!({"digits": shown, "toneDurationMs": 100, "interDigitMs": 100, "masked": masked}),
    );
    s.barge_in = keys.len() == 1;
    s
}

fn say(prompt: &str, phrase: &str, lang: &str) -> StepDef {
    let mut s = with(
        step(
            StepKind::Speech,
            Some(prompt),
            Some(phrase),
            Some(ClipId::MainMenu),
        ),
        json!({"phrase": phrase, "language": lang, "voice": if lang == "fr-CA" { "fr-CA Female 1" } else { "en-US Male 2" }}),
    );
    s.barge_in = true;
    s
}

fn transfer(prompt: &str, queue: &str, skill: &str) -> StepDef {
    with(
        step(
            StepKind::Transfer,
            Some(prompt),
            None,
            Some(ClipId::QueuePrompt),
        ),
        json!({"queue": queue, "skill": skill, "holdMusicDetected": true, "agentAnswerCheck": false}),
    )
}

fn hangup(prompt: &str) -> StepDef {
    with(
        step(StepKind::Hangup, Some(prompt), None, None),
        json!({"hangupBy": "caller", "sipCause": 16}),
    )
}

fn chat_start(app: &App, prompt: &str) -> StepDef {
    with(
        step(StepKind::ChatStart, Some(prompt), None, None),
        json!({"url": app.address, "browser": "Chromium 124 (headless)", "locale": "en-CA"}),
    )
}

fn bot(prompt: &str) -> StepDef {
    with(
        step(StepKind::BotMessage, Some(prompt), None, None),
        json!({"matchMode": "contains"}),
    )
}

fn user(prompt: &str, message: &str, intent: &str) -> StepDef {
    with(
        step(StepKind::UserMessage, Some(prompt), Some(message), None),
        json!({"message": message, "expectedIntent": intent}),
    )
}

fn quick(prompt: &str, options: &[&str], selected: &str) -> StepDef {
    with(
        step(StepKind::QuickReply, Some(prompt), Some(selected), None),
        json!({"options": options, "selected": selected}),
    )
}

fn form(prompt: &str, fields: Value) -> StepDef {
    let reply = fields
        .as_object()
        .map(|m| m.keys().cloned().collect::<Vec<_>>().join(", "))
        .unwrap_or_default();
    with(
        step(StepKind::Form, Some(prompt), Some(&reply), None),
        json!({ "fields": fields }),
    )
}

fn handoff(prompt: &str, queue: &str) -> StepDef {
    with(
        step(StepKind::Handoff, Some(prompt), None, None),
        json!({"queue": queue, "agentJoined": true, "transcriptSent": true}),
    )
}

// ---- flows ---------------------------------------------------------------------------

/// Builds cases, giving segments stable ids per application and steps ids per case.
struct Builder {
    cases: Vec<CaseDef>,
    segment_ids: HashMap<(i64, String), i64>,
    next_segment: HashMap<i64, i64>,
}

type Seg = (&'static str, Vec<StepDef>);

impl Builder {
    fn case(&mut self, id: i64, name: &str, app: usize, segments: Vec<Seg>) {
        let app_id = APPS[app].id;
        let mut step_no = 0;
        let segments = segments
            .into_iter()
            .map(|(seg_name, steps)| {
                let key = (app_id, seg_name.to_string());
                let seg_id = match self.segment_ids.get(&key) {
                    Some(id) => *id,
                    None => {
                        let n = self.next_segment.entry(app_id).or_insert(0);
                        *n += 1;
                        let id = app_id * 100 + *n;
                        self.segment_ids.insert(key, id);
                        id
                    }
                };
                SegmentDef {
                    id: seg_id,
                    name: seg_name.to_string(),
                    steps: steps
                        .into_iter()
                        .map(|mut s| {
                            step_no += 1;
                            s.id = id * 100 + step_no;
                            s
                        })
                        .collect(),
                }
            })
            .collect();
        self.cases.push(CaseDef {
            id,
            name: name.to_string(),
            app,
            segments,
        });
    }
}

pub(super) const BANK_GREETING: &str =
    "Thank you for calling Northbridge Bank. This call may be recorded for quality purposes.";
pub(super) const CARDS_GREETING: &str =
    "Welcome to Northbridge card services. To report a lost or stolen card, stay on the line.";
pub(super) const CLAIMS_GREETING: &str =
    "Thank you for calling Northbridge Insurance claims. We are here to help.";
const LANGUAGE: &str = "For English, press 1. Pour le français, appuyez sur le 2.";
const BANK_MENU: &str = "Main menu. For account balances, press 1 or say balance. For recent transactions, press 2. For transfers, press 3. For mortgage rates, press 4. To speak with an agent, press 0.";
const BANK_MENU_FR: &str = "Menu principal. Pour le solde de vos comptes, appuyez sur le 1. Pour parler à un agent, appuyez sur le 0.";
const ACCOUNT: &str = "Please enter your 10 digit account number, followed by the pound key.";
const PIN: &str = "Please enter your 4 digit PIN, followed by the pound key.";
const VERIFIED: &str = "Thank you. You have been verified.";
const ANYTHING_ELSE: &str = "Is there anything else I can help you with? Say yes or no.";
const GOODBYE: &str = "Thank you for calling Northbridge. Goodbye.";
const QUEUE: &str =
    "Please hold while we transfer your call. Your estimated wait time is 3 minutes.";
const QUEUE_FR: &str = "Veuillez patienter pendant que nous transférons votre appel. Le temps d'attente estimé est de 3 minutes.";
const CARDS_MENU: &str = "To report a lost or stolen card, press 1. To activate a new card, press 2. For your balance and payment due date, press 3. For all other card services, press 0.";
const CARD_NUMBER: &str =
    "Please enter the last 4 digits of your card number, followed by the pound key.";
const CLAIMS_MENU: &str = "To report a new claim, press 1. To check the status of a claim, press 2. For roadside assistance, press 3. To speak with a claims representative, press 0.";
const POLICY: &str = "Please enter your policy number, followed by the pound key.";

fn voice_cases(b: &mut Builder) {
    let (rb, cs, ic) = (0, 1, 2);
    let bank = &APPS[rb];
    let cards = &APPS[cs];
    let claims = &APPS[ic];
    let setup = |app: &App| ("Call Setup", vec![connect(app)]);
    let greet = |text: &str, clip| ("Greeting", vec![listen(text, clip)]);
    let english = || {
        (
            "Language Selection",
            vec![press(LANGUAGE, "1", ClipId::Dtmf1)],
        )
    };
    let french = || {
        (
            "Language Selection",
            vec![press(LANGUAGE, "2", ClipId::Dtmf2)],
        )
    };
    let auth = || {
        (
            "Authentication",
            vec![
                press(ACCOUNT, "4512889012#", ClipId::DtmfAccount),
                press(PIN, "7391#", ClipId::DtmfPin),
                listen(VERIFIED, ClipId::AuthPrompt),
            ],
        )
    };
    let wrap_up = || {
        (
            "Wrap Up",
            vec![say(ANYTHING_ELSE, "no", "en-US"), hangup(GOODBYE)],
        )
    };
    let agent = |queue: &str, skill: &str| ("Agent Transfer", vec![transfer(QUEUE, queue, skill)]);
    let answer = |text: &str| {
        (
            "Self Service",
            vec![listen(text, ClipId::SelfServiceAnswer)],
        )
    };

    // Retail Banking IVR
    b.case(1001, "Balance Inquiry - DTMF", rb, vec![
        setup(bank), greet(BANK_GREETING, ClipId::BankGreeting), english(),
        ("Main Menu", vec![press(BANK_MENU, "1", ClipId::Dtmf1)]),
        auth(),
        answer("Your chequing account ending in 9012 has an available balance of 2,415 dollars and 32 cents."),
        wrap_up(),
    ]);
    b.case(1002, "Balance Inquiry - Speech", rb, vec![
        setup(bank), greet(BANK_GREETING, ClipId::BankGreeting), english(),
        ("Main Menu", vec![say(BANK_MENU, "check my balance", "en-US")]),
        auth(),
        answer("Your chequing account ending in 9012 has an available balance of 2,415 dollars and 32 cents."),
        wrap_up(),
    ]);
    b.case(1003, "Recent Transactions", rb, vec![
        setup(bank), greet(BANK_GREETING, ClipId::BankGreeting), english(),
        ("Main Menu", vec![press(BANK_MENU, "2", ClipId::Dtmf2)]),
        auth(),
        answer("Your last transaction was a debit of 84 dollars and 17 cents at Metro Grocery on May 3rd. To hear more transactions, press 1."),
        wrap_up(),
    ]);
    b.case(1004, "Transfer Between Accounts", rb, vec![
        setup(bank), greet(BANK_GREETING, ClipId::BankGreeting), english(),
        ("Main Menu", vec![say(BANK_MENU, "transfer money", "en-US")]),
        auth(),
        ("Self Service", vec![
            press("To transfer 100 dollars from chequing to savings, press 1. To cancel, press 2.", "1", ClipId::Dtmf1),
            listen("Your transfer is complete. Your confirmation number is 4 4 7 1 9.", ClipId::SelfServiceAnswer),
        ]),
        wrap_up(),
    ]);
    b.case(1005, "Branch Hours and Locations", rb, vec![
        setup(bank), greet(BANK_GREETING, ClipId::BankGreeting), english(),
        ("Main Menu", vec![say(BANK_MENU, "branch hours", "en-US")]),
        ("Self Service", vec![
            say("Please say or enter your postal code.", "M 5 V 2 T 6", "en-US"),
            listen("The nearest branch is at 200 King Street West. It is open today from 9 AM to 5 PM.", ClipId::SelfServiceAnswer),
        ]),
        wrap_up(),
    ]);
    b.case(1006, "Mortgage Rates", rb, vec![
        setup(bank), greet(BANK_GREETING, ClipId::BankGreeting), english(),
        ("Main Menu", vec![press(BANK_MENU, "4", ClipId::Dtmf1)]),
        answer("Our current 5 year fixed mortgage rate is 4.79 percent. To speak with a mortgage specialist, press 0."),
        wrap_up(),
    ]);
    b.case(
        1007,
        "Speak to Agent - English",
        rb,
        vec![
            setup(bank),
            greet(BANK_GREETING, ClipId::BankGreeting),
            english(),
            ("Main Menu", vec![press(BANK_MENU, "0", ClipId::Dtmf0)]),
            agent("RB_GENERAL_EN", "retail-banking-en"),
        ],
    );
    b.case(
        1008,
        "Speak to Agent - French",
        rb,
        vec![
            setup(bank),
            greet(BANK_GREETING, ClipId::BankGreeting),
            french(),
            ("Main Menu", vec![press(BANK_MENU_FR, "0", ClipId::Dtmf0)]),
            (
                "Agent Transfer",
                vec![transfer(QUEUE_FR, "RB_GENERAL_FR", "retail-banking-fr")],
            ),
        ],
    );
    b.case(
        1009,
        "Invalid PIN Retry",
        rb,
        vec![
            setup(bank),
            greet(BANK_GREETING, ClipId::BankGreeting),
            english(),
            ("Main Menu", vec![press(BANK_MENU, "1", ClipId::Dtmf1)]),
            (
                "Authentication",
                vec![
                    press(ACCOUNT, "4512889012#", ClipId::DtmfAccount),
                    press(PIN, "0000#", ClipId::DtmfPin),
                    press(
                        "That PIN is incorrect. Please enter your 4 digit PIN again.",
                        "7391#",
                        ClipId::DtmfPin,
                    ),
                    listen(VERIFIED, ClipId::AuthPrompt),
                ],
            ),
            wrap_up(),
        ],
    );
    b.case(
        1010,
        "Stop Payment Request",
        rb,
        vec![
            setup(bank),
            greet(BANK_GREETING, ClipId::BankGreeting),
            english(),
            ("Main Menu", vec![say(BANK_MENU, "stop a cheque", "en-US")]),
            auth(),
            agent("RB_PAYMENTS_EN", "payments"),
        ],
    );
    b.case(1011, "After Hours - Banking Emergency Line", rb, vec![
        setup(bank),
        greet("Thank you for calling Northbridge Bank. Our branches are now closed. If your card was lost or stolen, press 1.", ClipId::BankGreeting),
        ("Main Menu", vec![press("For all other questions, please call back between 8 AM and 8 PM. To report a lost or stolen card, press 1.", "1", ClipId::Dtmf1)]),
        agent("CARDS_EMERGENCY_24x7", "cards-emergency"),
    ]);

    // Card Services IVR
    let lost_or_stolen = |word: &str| {
        say(
            "Is your card lost or stolen? Please say lost or stolen.",
            word,
            "en-US",
        )
    };
    b.case(1101, "Report Lost Card", cs, vec![
        setup(cards), greet(CARDS_GREETING, ClipId::CardsGreeting), english(),
        ("Main Menu", vec![press(CARDS_MENU, "1", ClipId::Dtmf1), lost_or_stolen("lost")]),
        ("Card Verification", vec![press(CARD_NUMBER, "4821#", ClipId::DtmfPin), press(PIN, "7391#", ClipId::DtmfPin)]),
        answer("Your card ending in 4821 has been blocked. A replacement card will arrive in 5 to 7 business days."),
        wrap_up(),
    ]);
    b.case(1102, "Report Stolen Card", cs, vec![
        setup(cards), greet(CARDS_GREETING, ClipId::CardsGreeting), english(),
        ("Main Menu", vec![press(CARDS_MENU, "1", ClipId::Dtmf1), lost_or_stolen("stolen")]),
        ("Card Verification", vec![press(CARD_NUMBER, "4821#", ClipId::DtmfPin)]),
        ("Self Service", vec![listen("Your card ending in 4821 has been blocked. Because your card was stolen, we will connect you with our fraud team.", ClipId::SelfServiceAnswer)]),
        agent("CARDS_FRAUD", "fraud"),
    ]);
    b.case(
        1103,
        "Activate New Card",
        cs,
        vec![
            setup(cards),
            greet(CARDS_GREETING, ClipId::CardsGreeting),
            english(),
            ("Main Menu", vec![press(CARDS_MENU, "2", ClipId::Dtmf2)]),
            (
                "Card Verification",
                vec![
                    press(CARD_NUMBER, "4821#", ClipId::DtmfPin),
                    press(
                        "Please enter the 3 digit security code on the back of your card.",
                        "517",
                        ClipId::DtmfPin,
                    ),
                ],
            ),
            answer("Your card is now active and ready to use."),
            wrap_up(),
        ],
    );
    b.case(1104, "Card Balance and Payment Due", cs, vec![
        setup(cards), greet(CARDS_GREETING, ClipId::CardsGreeting), english(),
        ("Main Menu", vec![press(CARDS_MENU, "3", ClipId::Dtmf1)]),
        ("Card Verification", vec![press(CARD_NUMBER, "4821#", ClipId::DtmfPin), press(PIN, "7391#", ClipId::DtmfPin)]),
        answer("Your current balance is 1,208 dollars and 44 cents. Your minimum payment of 35 dollars is due on June 12th."),
        wrap_up(),
    ]);
    b.case(
        1105,
        "Dispute a Transaction",
        cs,
        vec![
            setup(cards),
            greet(CARDS_GREETING, ClipId::CardsGreeting),
            english(),
            (
                "Main Menu",
                vec![say(CARDS_MENU, "dispute a charge", "en-US")],
            ),
            (
                "Card Verification",
                vec![press(CARD_NUMBER, "4821#", ClipId::DtmfPin)],
            ),
            agent("CARDS_DISPUTES", "disputes"),
        ],
    );
    b.case(
        1106,
        "Travel Notice",
        cs,
        vec![
            setup(cards),
            greet(CARDS_GREETING, ClipId::CardsGreeting),
            english(),
            ("Main Menu", vec![say(CARDS_MENU, "travel notice", "en-US")]),
            (
                "Card Verification",
                vec![press(CARD_NUMBER, "4821#", ClipId::DtmfPin)],
            ),
            (
                "Self Service",
                vec![
                    say("Which country are you travelling to?", "Portugal", "en-US"),
                    listen(
                        "Thank you. Your travel notice for Portugal has been added to your card.",
                        ClipId::SelfServiceAnswer,
                    ),
                ],
            ),
            wrap_up(),
        ],
    );
    b.case(1107, "Lost Card - French", cs, vec![
        setup(cards), greet(CARDS_GREETING, ClipId::CardsGreeting), french(),
        ("Main Menu", vec![press("Pour signaler une carte perdue ou volée, appuyez sur le 1.", "1", ClipId::Dtmf1)]),
        ("Card Verification", vec![press("Veuillez entrer les 4 derniers chiffres de votre carte, suivis du carré.", "4821#", ClipId::DtmfPin)]),
        ("Self Service", vec![listen("Votre carte se terminant par 4821 a été bloquée. Une nouvelle carte vous sera envoyée.", ClipId::SelfServiceAnswer)]),
        ("Wrap Up", vec![hangup("Merci d'avoir appelé Northbridge. Au revoir.")]),
    ]);
    b.case(
        1108,
        "PIN Reset",
        cs,
        vec![
            setup(cards),
            greet(CARDS_GREETING, ClipId::CardsGreeting),
            english(),
            ("Main Menu", vec![say(CARDS_MENU, "reset my PIN", "en-US")]),
            (
                "Card Verification",
                vec![press(CARD_NUMBER, "4821#", ClipId::DtmfPin)],
            ),
            (
                "Self Service",
                vec![
                    press(
                        "Please enter your new 4 digit PIN.",
                        "2468#",
                        ClipId::DtmfPin,
                    ),
                    press(
                        "Please enter your new PIN again to confirm.",
                        "2468#",
                        ClipId::DtmfPin,
                    ),
                    listen("Your PIN has been changed.", ClipId::SelfServiceAnswer),
                ],
            ),
            wrap_up(),
        ],
    );
    b.case(1109, "After Hours - Lost Card Hotline", cs, vec![
        setup(cards),
        greet("Thank you for calling Northbridge card services. Our offices are closed, but lost and stolen card reporting is available 24 hours a day.", ClipId::CardsGreeting),
        ("Main Menu", vec![press("To report a lost or stolen card, press 1.", "1", ClipId::Dtmf1)]),
        agent("CARDS_EMERGENCY_24x7", "cards-emergency"),
    ]);

    // Insurance Claims IVR
    let registration = |kind: &str| {
        (
            SEG_CLAIM_REGISTRATION,
            vec![
                say("Was anyone injured? Please say yes or no.", "no", "en-US"),
                listen(&format!("Thank you. Your {kind} claim has been registered. Your claim number is C 2 0 4 4 1 8. An adjuster will call you within 1 business day."), ClipId::SelfServiceAnswer),
            ],
        )
    };
    let policy = || {
        (
            "Policy Lookup",
            vec![press(POLICY, "4512889012#", ClipId::DtmfAccount)],
        )
    };
    b.case(
        1201,
        "FNOL - Auto Collision",
        ic,
        vec![
            setup(claims),
            greet(CLAIMS_GREETING, ClipId::ClaimsGreeting),
            english(),
            (
                "Main Menu",
                vec![
                    press(CLAIMS_MENU, "1", ClipId::Dtmf1),
                    say(
                        "Is this claim for your auto or home policy?",
                        "auto",
                        "en-US",
                    ),
                ],
            ),
            policy(),
            (
                "Loss Details",
                vec![say(
                    "In a few words, please tell me what happened.",
                    "another car hit my car in a parking lot",
                    "en-US",
                )],
            ),
            registration("auto"),
            wrap_up(),
        ],
    );
    b.case(
        1202,
        "FNOL - Home Water Damage",
        ic,
        vec![
            setup(claims),
            greet(CLAIMS_GREETING, ClipId::ClaimsGreeting),
            english(),
            (
                "Main Menu",
                vec![
                    press(CLAIMS_MENU, "1", ClipId::Dtmf1),
                    say(
                        "Is this claim for your auto or home policy?",
                        "home",
                        "en-US",
                    ),
                ],
            ),
            policy(),
            (
                "Loss Details",
                vec![say(
                    "In a few words, please tell me what happened.",
                    "a pipe burst in my basement",
                    "en-US",
                )],
            ),
            registration("home"),
            wrap_up(),
        ],
    );
    b.case(
        1203,
        "FNOL - Windshield Glass Claim",
        ic,
        vec![
            setup(claims),
            greet(CLAIMS_GREETING, ClipId::ClaimsGreeting),
            english(),
            (
                "Main Menu",
                vec![
                    press(CLAIMS_MENU, "1", ClipId::Dtmf1),
                    say(
                        "Is this claim for your auto or home policy?",
                        "auto",
                        "en-US",
                    ),
                ],
            ),
            policy(),
            (
                "Loss Details",
                vec![say(
                    "In a few words, please tell me what happened.",
                    "cracked windshield",
                    "en-US",
                )],
            ),
            registration("glass"),
            wrap_up(),
        ],
    );
    b.case(1204, "Claim Status Inquiry", ic, vec![
        setup(claims), greet(CLAIMS_GREETING, ClipId::ClaimsGreeting), english(),
        ("Main Menu", vec![press(CLAIMS_MENU, "2", ClipId::Dtmf2)]),
        ("Claim Lookup", vec![press("Please enter your claim number, followed by the pound key.", "204418#", ClipId::DtmfAccount)]),
        answer("Your claim C 2 0 4 4 1 8 is being reviewed by an adjuster. You will receive an update within 2 business days."),
        wrap_up(),
    ]);
    b.case(
        1205,
        "Roadside Assistance",
        ic,
        vec![
            setup(claims),
            greet(CLAIMS_GREETING, ClipId::ClaimsGreeting),
            english(),
            ("Main Menu", vec![press(CLAIMS_MENU, "3", ClipId::Dtmf1)]),
            (
                "Self Service",
                vec![say("Please say the city you are in.", "Toronto", "en-US")],
            ),
            agent("ROADSIDE_24x7", "roadside"),
        ],
    );
    b.case(
        1206,
        "Claims Agent Transfer",
        ic,
        vec![
            setup(claims),
            greet(CLAIMS_GREETING, ClipId::ClaimsGreeting),
            english(),
            ("Main Menu", vec![press(CLAIMS_MENU, "0", ClipId::Dtmf0)]),
            policy(),
            agent("CLAIMS_GENERAL_EN", "claims"),
        ],
    );
    b.case(1207, "After Hours - Claims Emergency", ic, vec![
        setup(claims),
        greet("Thank you for calling Northbridge Insurance claims. Our office is closed. If this is an emergency such as a fire or flood, press 1.", ClipId::ClaimsGreeting),
        ("Main Menu", vec![press("To report an emergency, press 1.", "1", ClipId::Dtmf1)]),
        agent("CLAIMS_EMERGENCY_24x7", "claims-emergency"),
    ]);
}

const SUPPORT_HELLO: &str =
    "Hi, I'm Nora, Northbridge's virtual assistant. How can I help you today?";
const SALES_HELLO: &str =
    "Hello! I'm Max from Northbridge. Looking for a new account, card or mortgage? I can help.";
const ANYTHING_ELSE_CHAT: &str = "Is there anything else I can help you with?";
const BYE_CHAT: &str = "Thanks for chatting with Northbridge. Have a great day!";

fn web_cases(b: &mut Builder) {
    let (sup, sal) = (3, 4);
    let support = &APPS[sup];
    let sales = &APPS[sal];
    let start = |app: &App, hello: &str| ("Greeting", vec![chat_start(app, hello)]);
    let intent = |message: &str, intent: &str, answer: &str| {
        (SEG_INTENT, vec![user(answer, message, intent)])
    };
    let end = || {
        (
            "End Chat",
            vec![
                bot(ANYTHING_ELSE_CHAT),
                user(BYE_CHAT, "no thanks", "goodbye"),
            ],
        )
    };
    b.case(2001, "Password Reset", sup, vec![
        start(support, SUPPORT_HELLO),
        intent("I forgot my online banking password", "password_reset", "I can help you reset your password. How would you like to receive your verification code?"),
        ("Quick Replies", vec![quick("How would you like to receive your verification code?", &["Text message", "Email"], "Text message")]),
        ("Answer", vec![bot("We've sent a 6 digit code to your mobile number ending in 0123. Enter it on the sign-in page to choose a new password.")]),
        end(),
    ]);
    b.case(2002, "Card Activation", sup, vec![
        start(support, SUPPORT_HELLO),
        intent("how do I activate my new card", "card_activation", "You can activate your card in the mobile app under Cards, or I can do it for you now."),
        ("Quick Replies", vec![quick("Would you like me to activate it now?", &["Yes, activate it", "No thanks"], "Yes, activate it")]),
        ("Form", vec![form("Please confirm the last 4 digits of your card and your date of birth.", json!({"cardLast4": "4821", "dateOfBirth": "1985-03-14"}))]),
        ("Answer", vec![bot("Done! Your card ending in 4821 is now active.")]),
        end(),
    ]);
    b.case(2003, "Download Statement", sup, vec![
        start(support, SUPPORT_HELLO),
        intent("where can I get my bank statement", "statement_download", "Your statements are under Accounts > Statements in online banking. Which month do you need?"),
        ("Quick Replies", vec![quick("Which month do you need?", &["Last month", "Earlier"], "Last month")]),
        ("Answer", vec![bot("Here is your April statement: statement-2024-04.pdf. It's also available for 7 years in online banking.")]),
        end(),
    ]);
    b.case(2004, "Update Mailing Address", sup, vec![
        start(support, SUPPORT_HELLO),
        intent("I moved and need to change my address", "address_change", "Sure, let's update your mailing address."),
        ("Form", vec![form("Please fill in your new address.", json!({"street": "200 King Street West", "city": "Toronto", "province": "ON", "postalCode": "M5V 2T6"}))]),
        ("Answer", vec![bot("Your mailing address has been updated. You'll receive a confirmation email shortly.")]),
        end(),
    ]);
    b.case(2005, "Report Fraud - Live Agent", sup, vec![
        start(support, SUPPORT_HELLO),
        intent("there is a charge on my card I don't recognise", "fraud_report", "I'm sorry to hear that. For your security, I'll connect you with our fraud team."),
        ("Live Agent Handoff", vec![handoff("I'm connecting you with a live agent. The current wait time is about 2 minutes.", "CHAT_FRAUD")]),
    ]);
    b.case(
        2006,
        "Branch Locator",
        sup,
        vec![
            start(support, SUPPORT_HELLO),
            intent(
                "find a branch near me",
                "branch_locator",
                "I can find the nearest branch. What's your postal code?",
            ),
            (
                "Form",
                vec![form(
                    "What's your postal code?",
                    json!({"postalCode": "M5V 2T6"}),
                )],
            ),
            (
                "Answer",
                vec![bot(
                    "The nearest branch is at 200 King Street West, open today 9 AM to 5 PM.",
                )],
            ),
            end(),
        ],
    );
    b.case(2007, "Unrecognised Question - Fallback", sup, vec![
        start(support, SUPPORT_HELLO),
        intent("what is the meaning of life", "fallback", "Sorry, I didn't quite get that. You can ask me about cards, accounts, statements or branches."),
        ("Quick Replies", vec![quick("Here are some things I can help with:", &["Cards", "Accounts", "Statements", "Talk to an agent"], "Talk to an agent")]),
        ("Live Agent Handoff", vec![handoff("I'm connecting you with a live agent. The current wait time is about 2 minutes.", "CHAT_GENERAL")]),
    ]);
    b.case(2101, "Credit Card Recommendation", sal, vec![
        start(sales, SALES_HELLO),
        intent("which credit card should I get", "card_recommendation", "Happy to help you choose. What matters most to you?"),
        ("Quick Replies", vec![quick("What matters most to you?", &["Travel rewards", "Cash back", "Low interest"], "Travel rewards")]),
        ("Answer", vec![bot("The Northbridge Voyager card earns 3 points per dollar on travel, with no foreign transaction fees. Annual fee: 139 dollars.")]),
        end(),
    ]);
    b.case(2102, "Mortgage Rate Inquiry", sal, vec![
        start(sales, SALES_HELLO),
        intent("what are your mortgage rates", "mortgage_rates", "Here are today's mortgage rates."),
        ("Answer", vec![bot("5 year fixed: 4.79%. 5 year variable: 5.95%. 3 year fixed: 5.14%. Would you like to speak with a mortgage specialist?")]),
        ("Quick Replies", vec![quick("Would you like to speak with a mortgage specialist?", &["Yes", "No"], "No")]),
        end(),
    ]);
    b.case(2103, "Book an Appointment", sal, vec![
        start(sales, SALES_HELLO),
        intent("I want to book an appointment with an advisor", "book_appointment", "Let's find a time that works for you."),
        ("Form", vec![form("Please choose a branch, date and time.", json!({"branch": "King & Spadina", "date": "next Tuesday", "time": "10:30", "email": "jane.doe@example.com"}))]),
        ("Answer", vec![bot("You're booked! A confirmation has been sent to jane.doe@example.com.")]),
        end(),
    ]);
    b.case(
        2104,
        "Open a Savings Account",
        sal,
        vec![
            start(sales, SALES_HELLO),
            intent(
                "I'd like to open a high interest savings account",
                "open_savings",
                "Our High Interest Savings account pays 3.25% with no monthly fee.",
            ),
            (
                "Quick Replies",
                vec![quick(
                    "Would you like to open one online now?",
                    &["Open now", "Tell me more"],
                    "Open now",
                )],
            ),
            (
                "Answer",
                vec![bot(
                    "Great! Here's your secure link to apply: it takes about 5 minutes.",
                )],
            ),
            end(),
        ],
    );
    b.case(
        2105,
        "Sales Handoff to Advisor",
        sal,
        vec![
            start(sales, SALES_HELLO),
            intent(
                "I want to talk to someone about a business loan",
                "business_lending",
                "A business banking advisor can help with that.",
            ),
            (
                "Live Agent Handoff",
                vec![handoff(
                    "I'm connecting you with an advisor. The current wait time is about 3 minutes.",
                    "CHAT_SALES_BUSINESS",
                )],
            ),
        ],
    );
    b.case(2106, "Promo Offer Eligibility", sal, vec![
        start(sales, SALES_HELLO),
        intent("am I eligible for the 400 dollar bonus", "promo_eligibility", "New chequing customers get up to 400 dollars when they set up 2 direct deposits."),
        ("Form", vec![form("Tell us a bit about you to check eligibility.", json!({"existingCustomer": "no", "province": "ON"}))]),
        ("Answer", vec![bot("Good news, you're eligible! Open a Northbridge Chequing account by June 30 to get the bonus.")]),
        end(),
    ]);
}

/// The whole demo catalog.
pub fn catalog() -> Catalog {
    let mut b = Builder {
        cases: Vec::new(),
        segment_ids: HashMap::new(),
        next_segment: HashMap::new(),
    };
    voice_cases(&mut b);
    web_cases(&mut b);
    let groups = vec![
        GroupDef {
            name: "Banking - Core Journeys",
            channel: Channel::Voice,
            cases: vec![1001, 1002, 1003, 1004, 1005, 1006, 1009, 1010],
        },
        GroupDef {
            name: "Cards - Lost & Stolen",
            channel: Channel::Voice,
            cases: vec![1101, 1102, 1107, 1108],
        },
        GroupDef {
            name: "Claims - FNOL",
            channel: Channel::Voice,
            cases: vec![1201, 1202, 1203, 1204, 1206],
        },
        GroupDef {
            name: "Chat - Support",
            channel: Channel::Web,
            cases: vec![2001, 2002, 2003, 2004, 2005, 2006, 2007],
        },
        GroupDef {
            name: "Chat - Sales",
            channel: Channel::Web,
            cases: vec![2101, 2102, 2103, 2104, 2105, 2106],
        },
        GroupDef {
            name: "After Hours",
            channel: Channel::Voice,
            cases: vec![1007, 1011, 1109, 1205, 1207],
        },
    ];
    Catalog {
        apps: APPS.to_vec(),
        cases: b.cases,
        groups,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn catalog_has_both_channels_six_groups_and_about_forty_cases() {
        let c = catalog();
        assert_eq!(c.groups.len(), 6);
        assert!((38..=44).contains(&c.cases.len()), "{}", c.cases.len());
        for ch in [Channel::Voice, Channel::Web] {
            assert!(c.groups.iter().any(|g| g.channel == ch));
            assert!(c.apps.iter().filter(|a| a.channel == ch).count() >= 2);
        }
        // Groups hold only existing cases of their own channel.
        for g in &c.groups {
            for id in &g.cases {
                let case = c.case(*id).unwrap_or_else(|| panic!("{} -> {id}", g.name));
                assert_eq!(c.apps[case.app].channel, g.channel, "{} -> {id}", g.name);
            }
        }
    }

    #[test]
    fn ids_are_unique_and_steps_fit_their_channel() {
        let c = catalog();
        let case_ids: HashSet<i64> = c.cases.iter().map(|c| c.id).collect();
        assert_eq!(case_ids.len(), c.cases.len());
        let mut step_ids = HashSet::new();
        let mut segment_names: HashMap<i64, String> = HashMap::new();
        for case in &c.cases {
            let voice = c.apps[case.app].channel == Channel::Voice;
            for seg in &case.segments {
                // One id per (application, segment name).
                let prev = segment_names.insert(seg.id, seg.name.clone());
                assert!(prev.is_none() || prev.as_deref() == Some(seg.name.as_str()));
                for s in &seg.steps {
                    assert!(step_ids.insert(s.id), "step id {}", s.id);
                    let voice_step = matches!(
                        s.kind,
                        StepKind::CallConnect
                            | StepKind::Prompt
                            | StepKind::Dtmf
                            | StepKind::Speech
                            | StepKind::Transfer
                            | StepKind::Hangup
                    );
                    assert_eq!(voice, voice_step, "{} step {}", case.name, s.id);
                    assert_eq!(
                        s.kind.has_reply(),
                        s.reply.is_some(),
                        "{} step {}",
                        case.name,
                        s.id
                    );
                }
            }
            if voice {
                assert_eq!(case.segments[0].steps[0].kind, StepKind::CallConnect);
            }
        }
    }
}
