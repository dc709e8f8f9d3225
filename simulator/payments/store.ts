// The simulated Stripe account: Checkout Sessions, their PaymentIntents and
// Charges, refunds, and the events each change emits, with the same fields
// (and the same names) as Stripe's objects of the API version the kit pins.
import { randomBytes } from "node:crypto";
import { RequestError } from "./http";

export type Session = {
  id: string;
  object: "checkout.session";
  amount_subtotal: number;
  amount_total: number;
  cancel_url: string | null;
  client_reference_id: string | null;
  created: number;
  currency: string;
  expires_at: number;
  livemode: false;
  metadata: Record<string, string>;
  mode: "payment";
  payment_intent: string | null;
  payment_status: "unpaid" | "paid";
  status: "open" | "complete" | "expired";
  success_url: string;
  url: string | null;
  /** Not a Stripe field: what the hosted page shows. Left out of the API's view. */
  line_items: LineItem[];
};

export type LineItem = { name: string; unit_amount: number; quantity: number; currency: string };

export type Charge = {
  id: string;
  object: "charge";
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  created: number;
  currency: string;
  livemode: false;
  paid: boolean;
  payment_intent: string;
  /** Where the buyer's receipt is, once the charge succeeded (Stripe hosts it; here the simulator's /receipts page). */
  receipt_url: string | null;
  refunded: boolean;
  status: "pending" | "succeeded" | "failed";
  metadata: Record<string, string>;
};

export type PaymentIntent = {
  id: string;
  object: "payment_intent";
  amount: number;
  amount_received: number;
  created: number;
  currency: string;
  latest_charge: string | null;
  livemode: false;
  metadata: Record<string, string>;
  status: "processing" | "succeeded" | "requires_payment_method";
};

export type Refund = {
  id: string;
  object: "refund";
  amount: number;
  charge: string;
  created: number;
  currency: string;
  payment_intent: string;
  status: "succeeded";
  metadata: Record<string, string>;
};

/** A chargeback: Stripe's Dispute object, as far as the kit reads it. */
export type Dispute = {
  id: string;
  object: "dispute";
  amount: number;
  charge: string;
  created: number;
  currency: string;
  livemode: false;
  payment_intent: string;
  reason: string;
  status: "needs_response" | "under_review" | "won" | "lost";
  is_charge_refundable: boolean;
  metadata: Record<string, string>;
};

export type StripeEvent = {
  id: string;
  object: "event";
  api_version: string;
  created: number;
  data: { object: unknown };
  livemode: false;
  pending_webhooks: number;
  request: { id: null; idempotency_key: null };
  type: string;
};

/** A refusal by the account itself (no such session, a state that does not allow the action): Stripe's error shape, as every RequestError. */
export class PaymentError extends RequestError {}

const API_VERSION = "2026-10-28.endive";
const now = () => Math.floor(Date.now() / 1000);
export const newId = (prefix: string) => `${prefix}_test_${randomBytes(12).toString("base64url").replace(/[-_]/g, "x")}`;
const copy = <T>(value: T): T => structuredClone(value);

export class PaymentStore {
  readonly sessions = new Map<string, Session>();
  readonly intents = new Map<string, PaymentIntent>();
  readonly charges = new Map<string, Charge>();
  readonly refunds = new Map<string, Refund>();
  readonly disputes = new Map<string, Dispute>();
  readonly events: StripeEvent[] = [];
  /** Which session each PaymentIntent was made for (a declined attempt's too, which the session does not name). */
  readonly intentSessions = new Map<string, string>();

  constructor(
    private readonly publicUrl: () => string,
    /** Called with every event this account emits, in order. */
    private readonly emit: (event: StripeEvent) => void,
  ) {}

  createSession(input: Omit<Session, "id" | "object" | "created" | "expires_at" | "livemode" | "payment_intent" | "payment_status" | "status" | "url" | "amount_subtotal" | "amount_total">): Session {
    const amount = input.line_items.reduce((sum, item) => sum + item.unit_amount * item.quantity, 0);
    const id = newId("cs");
    const session: Session = {
      id,
      object: "checkout.session",
      amount_subtotal: amount,
      amount_total: amount,
      created: now(),
      expires_at: now() + 24 * 3600,
      livemode: false,
      payment_intent: null,
      payment_status: "unpaid",
      status: "open",
      url: `${this.publicUrl()}/c/pay/${id}`,
      ...input,
    };
    this.sessions.set(id, session);
    return session;
  }

  session(id: string): Session {
    const session = this.sessions.get(id);
    if (!session) throw new PaymentError(404, "resource_missing", `No such checkout.session: '${id}'`, "id");
    return session;
  }

  /** The card is accepted: the session completes paid. */
  pay(id: string): Session {
    const session = this.openSession(id);
    const { intent, charge } = this.startPayment(session, "succeeded");
    session.status = "complete";
    session.payment_status = "paid";
    session.payment_intent = intent.id;
    this.emitEvent("charge.succeeded", charge);
    this.emitEvent("checkout.session.completed", session);
    return session;
  }

  /** The card is declined: the session stays open (the buyer may try again or go back). */
  decline(id: string): Session {
    const session = this.openSession(id);
    const intent = this.newIntent(session, "requires_payment_method");
    this.emitEvent("payment_intent.payment_failed", intent);
    return session;
  }

  /** A delayed method (a bank debit): the session completes unpaid, and settles later with settle(). */
  payLater(id: string): Session {
    const session = this.openSession(id);
    const { intent, charge } = this.startPayment(session, "pending");
    session.status = "complete";
    session.payment_intent = intent.id;
    this.emitEvent("charge.pending", charge);
    this.emitEvent("checkout.session.completed", session);
    return session;
  }

  /** The delayed payment succeeds or fails. */
  settle(id: string, outcome: "succeed" | "fail"): Session {
    const session = this.session(id);
    const intent = session.payment_intent ? this.intents.get(session.payment_intent) : undefined;
    const charge = intent?.latest_charge ? this.charges.get(intent.latest_charge) : undefined;
    if (session.status !== "complete" || session.payment_status === "paid" || !intent || !charge || charge.status !== "pending") {
      throw new PaymentError(400, "payment_not_pending", `Checkout Session ${id} has no payment waiting to settle.`);
    }
    if (outcome === "succeed") {
      intent.status = "succeeded";
      intent.amount_received = intent.amount;
      charge.status = "succeeded";
      charge.paid = true;
      charge.amount_captured = charge.amount;
      charge.receipt_url = this.receiptUrl(charge.id);
      session.payment_status = "paid";
      this.emitEvent("charge.succeeded", charge);
      this.emitEvent("payment_intent.succeeded", intent);
      this.emitEvent("checkout.session.async_payment_succeeded", session);
    } else {
      intent.status = "requires_payment_method";
      charge.status = "failed";
      this.emitEvent("charge.failed", charge);
      this.emitEvent("payment_intent.payment_failed", intent);
      this.emitEvent("checkout.session.async_payment_failed", session);
    }
    return session;
  }

  /** Refunds `amount` (default: what is left) of a PaymentIntent's charge: charge.refunded carries the cumulative amount_refunded. */
  refund({ paymentIntent, amount }: { paymentIntent: string; amount?: number }): Refund {
    const intent = this.intents.get(paymentIntent);
    if (!intent) throw new PaymentError(404, "resource_missing", `No such payment_intent: '${paymentIntent}'`, "payment_intent");
    const charge = intent.latest_charge ? this.charges.get(intent.latest_charge) : undefined;
    if (!charge || charge.status !== "succeeded") throw new PaymentError(400, "charge_not_refundable", `PaymentIntent ${paymentIntent} has no successful charge to refund.`, "payment_intent");
    const left = charge.amount - charge.amount_refunded;
    const value = amount ?? left;
    if (left <= 0) throw new PaymentError(400, "charge_already_refunded", `Charge ${charge.id} has already been refunded.`);
    if (!Number.isInteger(value) || value <= 0 || value > left) {
      throw new PaymentError(400, "amount_too_large", `Refund amount (${value}) is greater than unrefunded amount on charge (${left})`, "amount");
    }
    const refund: Refund = { id: newId("re"), object: "refund", amount: value, charge: charge.id, created: now(), currency: charge.currency, payment_intent: intent.id, status: "succeeded", metadata: {} };
    this.refunds.set(refund.id, refund);
    charge.amount_refunded += value;
    charge.refunded = charge.amount_refunded === charge.amount;
    this.emitEvent("refund.created", refund);
    this.emitEvent("charge.refunded", charge);
    return refund;
  }

  /**
   * The buyer's bank disputes the charge: charge.dispute.created with the
   * dispute (needs_response). A charge is disputed once, as at Stripe.
   */
  openDispute({ paymentIntent, reason = "fraudulent" }: { paymentIntent: string; reason?: string }): Dispute {
    const intent = this.intents.get(paymentIntent);
    if (!intent) throw new PaymentError(404, "resource_missing", `No such payment_intent: '${paymentIntent}'`, "payment_intent");
    const charge = intent.latest_charge ? this.charges.get(intent.latest_charge) : undefined;
    if (!charge || charge.status !== "succeeded") throw new PaymentError(400, "charge_not_disputable", `PaymentIntent ${paymentIntent} has no successful charge to dispute.`, "payment_intent");
    if ([...this.disputes.values()].some((d) => d.charge === charge.id)) throw new PaymentError(400, "charge_already_disputed", `Charge ${charge.id} is already disputed.`);
    const dispute: Dispute = {
      id: newId("dp"),
      object: "dispute",
      amount: charge.amount - charge.amount_refunded,
      charge: charge.id,
      created: now(),
      currency: charge.currency,
      livemode: false,
      payment_intent: intent.id,
      reason,
      status: "needs_response",
      is_charge_refundable: false,
      metadata: {},
    };
    this.disputes.set(dispute.id, dispute);
    this.emitEvent("charge.dispute.created", dispute);
    return dispute;
  }

  /** The dispute is decided: charge.dispute.closed with status won or lost. */
  closeDispute({ paymentIntent, outcome }: { paymentIntent: string; outcome: "won" | "lost" }): Dispute {
    const dispute = [...this.disputes.values()].find((d) => d.payment_intent === paymentIntent);
    if (!dispute) throw new PaymentError(404, "resource_missing", `PaymentIntent ${paymentIntent} has no dispute.`, "payment_intent");
    if (dispute.status === "won" || dispute.status === "lost") throw new PaymentError(400, "dispute_closed", `Dispute ${dispute.id} is already ${dispute.status}.`);
    dispute.status = outcome;
    this.emitEvent("charge.dispute.closed", dispute);
    return dispute;
  }

  /** A session's PaymentIntent id, for a refund named by the session. */
  paymentIntentOf(sessionId: string): string {
    const intent = this.session(sessionId).payment_intent;
    if (!intent) throw new PaymentError(400, "no_payment", `Checkout Session ${sessionId} has no payment.`);
    return intent;
  }

  /** Where a session stands, for the hosted page: a completed unpaid session is processing until its charge settles. */
  paymentState(session: Session): "open" | "processing" | "paid" | "failed" | "expired" {
    if (session.status !== "complete") return session.status;
    if (session.payment_status === "paid") return "paid";
    const intent = session.payment_intent ? this.intents.get(session.payment_intent) : undefined;
    const charge = intent?.latest_charge ? this.charges.get(intent.latest_charge) : undefined;
    return charge?.status === "failed" ? "failed" : "processing";
  }

  /** The session as the API shows it (the hosted page's line items are not a field of the object). */
  view(session: Session): Omit<Session, "line_items"> {
    const view: Partial<Session> = copy(session);
    delete view.line_items;
    return view as Omit<Session, "line_items">;
  }

  reset(): void {
    this.sessions.clear();
    this.intents.clear();
    this.charges.clear();
    this.refunds.clear();
    this.disputes.clear();
    this.intentSessions.clear();
    this.events.length = 0;
  }

  private openSession(id: string): Session {
    const session = this.session(id);
    if (session.status !== "open") throw new PaymentError(400, "checkout_session_not_open", `Checkout Session ${id} is ${session.status}.`);
    return session;
  }

  private newIntent(session: Session, status: PaymentIntent["status"]): PaymentIntent {
    const intent: PaymentIntent = {
      id: newId("pi"),
      object: "payment_intent",
      amount: session.amount_total,
      amount_received: status === "succeeded" ? session.amount_total : 0,
      created: now(),
      currency: session.currency,
      latest_charge: null,
      livemode: false,
      metadata: {},
      status,
    };
    this.intents.set(intent.id, intent);
    this.intentSessions.set(intent.id, session.id);
    return intent;
  }

  private startPayment(session: Session, chargeStatus: "succeeded" | "pending") {
    const intent = this.newIntent(session, chargeStatus === "succeeded" ? "succeeded" : "processing");
    const id = newId("ch");
    const charge: Charge = {
      id,
      object: "charge",
      amount: intent.amount,
      amount_captured: chargeStatus === "succeeded" ? intent.amount : 0,
      amount_refunded: 0,
      created: now(),
      currency: intent.currency,
      livemode: false,
      paid: chargeStatus === "succeeded",
      payment_intent: intent.id,
      receipt_url: chargeStatus === "succeeded" ? this.receiptUrl(id) : null,
      refunded: false,
      status: chargeStatus,
      metadata: {},
    };
    intent.latest_charge = charge.id;
    this.charges.set(charge.id, charge);
    return { intent, charge };
  }

  private receiptUrl(chargeId: string): string {
    return `${this.publicUrl()}/receipts/${chargeId}`;
  }

  private emitEvent(type: string, object: Session | Charge | PaymentIntent | Refund | Dispute): void {
    const data = object.object === "checkout.session" ? this.view(object) : copy(object);
    const event: StripeEvent = {
      id: newId("evt"),
      object: "event",
      api_version: API_VERSION,
      created: now(),
      data: { object: data },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    this.events.push(event);
    if (this.events.length > 10_000) this.events.shift();
    this.emit(event);
  }
}
