//! A surface's save books as one value: one [`SaveBook`](super::SaveBook) per kind whose
//! receipts land in the surface's slot, and the routing of the surface's save slots and save
//! payloads to them. The surface model routes every save slot here before its read slots, so a
//! new kind whose slot and payload variants share a name is one line in its surface's
//! [`save_books!`] and no arm in the model.

/// Declares a surface's save books: `struct Name for Slot, Payload { field: Kind => Variant }`,
/// where `Slot::Variant(SaveId)` is the kind's slot and `Payload::Variant(Box<SaveEvent<Kind>>)`
/// its payload.
macro_rules! save_books {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident for $slot:ident, $payload:ident {
            $($(#[$fmeta:meta])* $field:ident: $kind:ty => $variant:ident),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Default)]
        $vis struct $name {
            $($(#[$fmeta])* pub $field: $crate::view::saves::SaveBook<$kind>,)+
        }

        impl $name {
            /// A save's dispatch: `None` when `ticket` is not one of these saves' slots.
            #[allow(unreachable_patterns)]
            pub fn dispatched(
                &mut self,
                ticket: &$crate::actors::contract::Ticket<$slot>,
            ) -> Option<bool> {
                match &ticket.slot {
                    $($slot::$variant(id) => Some(self.$field.dispatched(id, ticket)),)+
                    _ => None,
                }
            }

            /// Whether a save's event may be applied: `None` when `ticket` is not a save slot
            /// here; a save slot carrying another kind's payload is never applied.
            #[allow(unreachable_patterns)]
            pub fn judge(
                &self,
                ticket: &$crate::actors::contract::Ticket<$slot>,
                payload: &$payload,
            ) -> Option<Result<(), $crate::view::admission::RejectReason>> {
                match (&ticket.slot, payload) {
                    $(($slot::$variant(_), $payload::$variant(event)) => {
                        Some(self.$field.judge(ticket, event))
                    })+
                    $(($slot::$variant(_), _) => {
                        Some(Err($crate::view::admission::RejectReason::UnknownSlot))
                    })+
                    _ => None,
                }
            }

            /// Applies a judged save event: `Ok` with its receipt's class when it ended,
            /// `Err(payload)` when the payload is not a save's (the model's to apply).
            #[allow(unreachable_patterns)]
            pub fn apply(
                &mut self,
                payload: $payload,
            ) -> Result<Option<$crate::protocol::outcome::SaveClass>, $payload> {
                match payload {
                    $($payload::$variant(event) => {
                        let ended = match &event.step {
                            $crate::actors::saves::SaveStep::Ended(r) => {
                                Some($crate::actors::saves::Receipt::class(r))
                            }
                            _ => None,
                        };
                        self.$field.apply(*event);
                        Ok(ended)
                    })+
                    other => Err(other),
                }
            }

            /// A save's ticket ended without a receipt: `None` when not a save slot here.
            #[allow(unreachable_patterns)]
            pub fn retired(
                &mut self,
                ticket: &$crate::actors::contract::Ticket<$slot>,
            ) -> Option<bool> {
                match &ticket.slot {
                    $($slot::$variant(id) => Some(self.$field.retired(id, ticket)),)+
                    _ => None,
                }
            }
        }
    };
}
pub(crate) use save_books;
