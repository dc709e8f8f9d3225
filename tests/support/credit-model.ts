// The model the credit properties (tests/integration/credit-properties.test.ts)
// check the app against: the ledger's rules written out again, in whole
// credits, from the operator's documented defaults (markup 1.5, a credit
// $0.10) rather than imported, so that the model is not the code under test;
// and the Stripe events the test signs and sends.
import { randomUUID } from "node:crypto";

// Prices: the catalog's text-to-video models (0.1408 USD per second, 5 s unless said) and the packs on sale.
export const MODELS = ["alpha-2.5-text-to-video-480p", "alpha-2.5-text-to-video"] as const;
export const USD_MICROS_PER_SECOND = 140_800;
export const DEFAULT_SECONDS = 5;
/** Whole credits for a cost in USD: × 1.5 ÷ 0.1, rounded up. */
export const creditsFor = (usd: number) => {
  const micros = Math.round(usd * 1_000_000);
  return micros <= 0 ? 0 : Math.ceil((micros * 15) / 1_000_000 - 1e-9);
};
export const holdFor = (seconds: number) => Math.ceil((USD_MICROS_PER_SECOND * seconds * 15) / 1_000_000 - 1e-9);

export const PACKS = {
  starter: { credits: 100, unitAmount: 1_000 },
  creator: { credits: 500, unitAmount: 4_500 },
  studio: { credits: 1_200, unitAmount: 9_900 },
} as const;
export type PackId = keyof typeof PACKS;
export type Share = "quarter" | "half" | "full";
export const refundedAmount = (pack: PackId, share: Share) => (PACKS[pack].unitAmount * { quarter: 1, half: 2, full: 4 }[share]) / 4;

// The model.
/** What the gateway reports a SUCCESS cost in its callbacks: its own figure, less, more than the estimate, nothing. */
export type Figure = "gateway" | "below" | "above" | "zero";
export type Gen = {
  id: string;
  marker: string;
  seconds: number;
  hold: number;
  outcome: "success" | "failure";
  figure: Figure;
  /** The gateway has finished the task (the simulator settled it). */
  finished: boolean;
  state: "PENDING" | "SUCCESS" | "FAILURE" | "SUBMIT_FAILED";
  /** What its SUCCESS cost (what the capture kept of the hold). */
  charge: number;
  /** The gateway figure the SUCCESS was applied with, priced above the hold. */
  overHold: boolean;
};
export type Buy = {
  sessionId: string;
  paymentIntentId: string;
  pack: PackId;
  amountRefunded: number;
  /** Taken back by refunds and the dispute (the purchase's creditsClawedBack), and by refunds alone (its REFUND rows). */
  clawedBack: number;
  refundTaken: number;
  /** Credits a refund or the dispute could not take (spent or held), and of them what new credits have paid. */
  owed: number;
  collected: number;
  early: number;
  disputeId: string;
  dispute: "open" | "won" | "lost" | null;
  /** What the dispute took from the balance, and left owed. */
  disputeTaken: number;
  disputeOwed: number;
};
export type Model = {
  balance: number;
  held: number;
  purchases: number;
  charges: number;
  clawbacks: number;
  /** What disputes took, less what won disputes gave back. */
  disputed: number;
  /** What new credits paid of what was owed. */
  collections: number;
  gens: Gen[];
  buys: Buy[];
};

export const newBuy = (id: string, pack: PackId): Buy => ({
  sessionId: `cs_test_prop_${id}`,
  paymentIntentId: `pi_test_prop_${id}`,
  pack,
  amountRefunded: 0,
  clawedBack: 0,
  refundTaken: 0,
  owed: 0,
  collected: 0,
  early: 0,
  disputeId: `dp_test_prop_${id}`,
  dispute: null,
  disputeTaken: 0,
  disputeOwed: 0,
});

/** Credits coming in: what is owed is paid from them first, oldest purchase first, at most what came in. */
export function inflow(m: Model, amount: number) {
  m.balance += amount;
  let left = amount;
  for (const b of m.buys) {
    const take = Math.min(b.owed - b.collected, left);
    if (take <= 0) continue;
    b.collected += take;
    left -= take;
    m.balance -= take;
    m.collections += take;
  }
}

/** The gateway's own figure for a SUCCESS (what the simulator charges): USD per second × seconds. */
export const gatewayUsd = (g: Gen) => (USD_MICROS_PER_SECOND * g.seconds) / 1_000_000;

/** The figure a SUCCESS callback of `g` carries, given the simulator's own `creditsConsumed`. */
export function reported(g: Gen, simulatorFigure: number): number {
  switch (g.figure) {
    case "gateway":
      return simulatorFigure;
    case "below":
      return 0.1;
    case "above":
      return Math.round(simulatorFigure * 4 * 10_000) / 10_000;
    case "zero":
      return 0;
  }
}

/** The outcome lands: SUCCESS keeps what it cost (never more than the hold), FAILURE gives the hold back. */
export function settle(m: Model, g: Gen, figure: number | null) {
  m.held -= g.hold;
  if (g.outcome === "failure") {
    g.state = "FAILURE";
    inflow(m, g.hold);
    return;
  }
  const priced = figure === null ? g.hold : creditsFor(figure);
  g.state = "SUCCESS";
  g.charge = Math.min(priced, g.hold);
  g.overHold = priced > g.hold;
  m.charges += g.charge;
  inflow(m, g.hold - g.charge);
}

/** A cumulative refund figure applied to a credited purchase, as the ledger's rules say: the share, at most what is left, the rest owed. */
export function applyRefund(m: Model, b: Buy, amount: number) {
  const { credits, unitAmount } = PACKS[b.pack];
  const cumulative = Math.min(amount, unitAmount);
  if (cumulative <= b.amountRefunded) return;
  // An open or lost dispute has taken every credit already.
  const due = Math.max(0, Math.ceil((credits * cumulative) / unitAmount - 1e-9) - b.clawedBack - b.owed);
  const taken = Math.max(0, Math.min(due, m.balance));
  b.clawedBack += taken;
  b.refundTaken += taken;
  b.owed += due - taken;
  b.amountRefunded = cumulative;
  m.balance -= taken;
  m.clawbacks += taken;
}

/** A dispute event of the purchase, as the ledger's rules say: opened or lost takes what refunds did not, once; won (after opened) gives it back, once. */
export function applyDispute(m: Model, b: Buy, change: "opened" | "won" | "lost") {
  const take = () => {
    const due = Math.max(0, PACKS[b.pack].credits - b.clawedBack - b.owed);
    const taken = Math.min(due, m.balance);
    b.disputeTaken = taken;
    b.disputeOwed = due - taken;
    b.clawedBack += taken;
    b.owed += due - taken;
    m.balance -= taken;
    m.disputed += taken;
  };
  if (change === "opened") {
    if (b.dispute === null) {
      take();
      b.dispute = "open";
    }
    return;
  }
  if (change === "lost") {
    if (b.dispute === null) take();
    if (b.dispute === null || b.dispute === "open") b.dispute = "lost";
    return;
  }
  if (b.dispute === null) b.dispute = "won";
  if (b.dispute !== "open") return;
  const forgiven = Math.min(b.disputeOwed, Math.max(0, b.owed - b.collected));
  const collected = b.disputeOwed - forgiven;
  const returned = b.disputeTaken + collected;
  b.clawedBack -= b.disputeTaken;
  b.owed -= b.disputeOwed;
  b.collected -= collected;
  b.dispute = "won";
  m.disputed -= returned;
  inflow(m, returned);
}

// Stripe events, as the webhook receives them.
const stripeEvent = (type: string, object: object) => ({
  id: `evt_${randomUUID().replaceAll("-", "")}`,
  object: "event",
  api_version: "2025-01-27.acacia",
  created: Math.floor(Date.now() / 1000),
  livemode: false,
  pending_webhooks: 1,
  request: { id: null, idempotency_key: null },
  type,
  data: { object },
});

export const completedEvent = (ownerId: string, b: Buy) =>
  stripeEvent("checkout.session.completed", {
    id: b.sessionId,
    object: "checkout.session",
    mode: "payment",
    status: "complete",
    payment_status: "paid",
    client_reference_id: ownerId,
    metadata: { ownerId, packId: b.pack, credits: String(PACKS[b.pack].credits) },
    currency: "usd",
    amount_subtotal: PACKS[b.pack].unitAmount,
    amount_total: PACKS[b.pack].unitAmount,
    payment_intent: b.paymentIntentId,
  });

export const refundedEvent = (b: Buy, amountRefunded: number) =>
  stripeEvent("charge.refunded", {
    id: `ch_${b.paymentIntentId.slice(3)}`,
    object: "charge",
    amount: PACKS[b.pack].unitAmount,
    amount_refunded: amountRefunded,
    refunded: amountRefunded >= PACKS[b.pack].unitAmount,
    currency: "usd",
    payment_intent: b.paymentIntentId,
  });


export const disputeEvent = (b: Buy, change: "opened" | "won" | "lost") =>
  stripeEvent(change === "opened" ? "charge.dispute.created" : "charge.dispute.closed", {
    id: b.disputeId,
    object: "dispute",
    amount: PACKS[b.pack].unitAmount,
    charge: `ch_${b.paymentIntentId.slice(3)}`,
    currency: "usd",
    payment_intent: b.paymentIntentId,
    reason: "fraudulent",
    status: change === "opened" ? "needs_response" : change,
  });
