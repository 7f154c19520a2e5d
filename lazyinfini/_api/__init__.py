"""The API layer: one module per spec section. Validates, promotes, broadcasts, records nodes."""
