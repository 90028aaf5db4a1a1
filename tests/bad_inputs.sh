#!/bin/sh
# placeholder: replaced by the bad-input corpus driver
exit 0
