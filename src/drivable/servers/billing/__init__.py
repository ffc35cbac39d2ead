"""The billing reference server: invoices and refunds (`drivable serve billing`)."""
