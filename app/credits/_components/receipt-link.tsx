// A purchase's receipt: a route that redirects to the receipt Stripe hosts
// (/credits/receipt/:sessionId), opened in a new tab so the buyer keeps their
// place in the kit. A plain link, not a client navigation.
export function ReceiptLink({ sessionId, className }: { sessionId: string; className: string }) {
  return (
    <a href={`/credits/receipt/${encodeURIComponent(sessionId)}`} target="_blank" rel="noopener noreferrer" className={className}>
      Receipt<span className="sr-only"> (opens in a new tab)</span>
    </a>
  );
}
