import type { EventKind, EventPayload } from '@app/common';
import type { RenderedPage } from '../../platform/pages/page-layout';
import type { DeliveryView } from '../../webhooks/webhook.view';
import type { SignedInUser } from '../access/signed-in-user';
import { consolePaths } from '../console-paths';
import { EVENT_KIND_CHOICES } from '../rendering/choices';
import { consolePage } from '../rendering/console-layout';
import { selectField } from '../rendering/forms';
import { html, Html } from '../rendering/html';
import { dataTable, facts, jsonBlock, timestamp } from '../rendering/page-parts';
import { deliveryTable, underWay } from '../webhooks/webhook.pages';

/** The id of the record an event is about, when it names one. */
function subjectOf(event: EventPayload): string | null {
  const id = (event.data.object as { id?: unknown }).id;
  return typeof id === 'string' ? id : null;
}

function eventTable(events: readonly EventPayload[], empty: string): Html {
  return dataTable(
    events,
    [
      { label: 'Type', cell: (event) => html`<a href="${consolePaths.event(event.id)}">${event.type}<span class="visually-hidden"> event ${event.id}</span></a>` },
      { label: 'Id', cell: (event) => html`<code>${event.id}</code>` },
      {
        label: 'About',
        cell: (event) => {
          const subject = subjectOf(event);
          return subject ? html`<code>${subject}</code>` : '—';
        },
      },
      { label: 'Created', cell: (event) => timestamp(event.created_at) },
    ],
    empty,
    'Events',
  );
}

export interface EventsPageInput {
  events: readonly EventPayload[];
  type?: EventKind;
  next: string | null;
}

export function eventsPage(user: SignedInUser, input: EventsPageInput): RenderedPage {
  const older = input.next
    ? html`<nav class="pages" aria-label="Pages"><a href="${consolePaths.events}?${new URLSearchParams({ ...(input.type ? { type: input.type } : {}), cursor: input.next }).toString()}" rel="next">Older events</a></nav>`
    : null;
  const empty = input.type ? `No ${input.type} events here.` : 'No events here yet.';
  return consolePage(
    { title: 'Events', user, section: 'events' },
    html`<h1>Events</h1>
<p class="lead">The events your webhooks could receive, newest first: changes to your records and to your organizations' resources.</p>
<form method="get" action="${consolePaths.events}" class="filters" role="search" aria-label="Filter events">
${selectField({ form: 'filter', name: 'type', label: 'Event type', choices: [{ value: '', label: 'All types' }, ...EVENT_KIND_CHOICES], selected: input.type ?? '' })}
<button type="submit" class="secondary">Filter</button>
</form>
${eventTable(input.events, empty)}
${older}`,
  );
}

export function eventPage(user: SignedInUser, event: EventPayload, deliveries: readonly DeliveryView[]): RenderedPage {
  return consolePage(
    { title: `Event ${event.id}`, user, section: 'events', pending: deliveries.some(underWay) },
    html`<p><a href="${consolePaths.events}">All events</a></p>
<h1>${event.type}</h1>
${facts([
  ['Id', html`<code>${event.id}</code>`],
  ['Created', timestamp(event.created_at)],
])}
<h2>Payload</h2>
<p class="muted">The body each webhook receives.</p>
${jsonBlock(event, 'Event payload')}
<h2 id="caused-heading">Deliveries to your webhooks</h2>
${deliveryTable(user, deliveries, 'None of your webhooks received this event.', 'Deliveries to your webhooks', true)}
}`,
  );
}
