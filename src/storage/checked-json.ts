/**
 * Events whose `data` and `metadata` a JSON parser above the engine has already accepted as JSON
 * objects: the operations layer marks every event of an append, because its input check
 * (toJsonObjectText) has parsed each payload or taken it from a parser that did (the REST
 * gateway's one JSON.parse of the body), or written it with JSON.stringify from an object. The
 * engines' own input check (./validate-input.ts) then skips its second JSON.parse of
 * those texts and keeps only a cheap shape check ("{" ... "}"), so a wrong text still never
 * reaches disk; every other check runs as before. An event not marked here (a caller of the
 * engine itself) is fully checked.
 *
 * The mark is kept in a WeakSet keyed by the event object the engine receives, so it cannot be
 * forged by a field in a request and costs no memory once the append is done.
 */
import type { EventToAppend } from "./engine.js";

const parsedPayloadEvents = new WeakSet<EventToAppend>();

/** Marks `event`: its data and metadata texts were produced by a parser that accepted them as objects. */
export function markPayloadsParsed(event: EventToAppend): EventToAppend {
  parsedPayloadEvents.add(event);
  return event;
}

export function arePayloadsParsed(event: EventToAppend): boolean {
  return parsedPayloadEvents.has(event);
}
