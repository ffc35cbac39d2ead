#!/bin/sh
# The trial's repository: a small shop with dated commits, a release branch, a staged change and
# an unstaged one. Fixed names and dates, so every trial starts from the same commits.
set -eu
export GIT_AUTHOR_NAME="Dana Shop" GIT_AUTHOR_EMAIL="dana@shop.test"
export GIT_COMMITTER_NAME="Dana Shop" GIT_COMMITTER_EMAIL="dana@shop.test"
export GIT_CONFIG_NOSYSTEM=1 HOME="$PWD"
git init -q -b main shop
cd shop
git config user.name "Dana Shop"
git config user.email "dana@shop.test"
commit() {
    GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1" git commit -q -m "$2"
}
printf '# Shop\n\nA small web shop.\n' > README.md
printf 'def price(cents):\n    return cents / 100\n' > prices.py
git add README.md prices.py
commit "2026-01-12T09:00:00+01:00" "Start the shop with a README and prices"
printf '<h1>Cart</h1>\n' > cart.html
git add cart.html
commit "2026-02-03T10:30:00+01:00" "Add the cart page"
printf '<h1>Checkout</h1>\n<form>pay</form>\n' > checkout.html
git add checkout.html
commit "2026-02-20T16:45:00+01:00" "Add the checkout page"
git branch release-1.0
printf 'def price(cents):\n    return round(cents / 100, 2)\n' > prices.py
git add prices.py
commit "2026-03-04T11:15:00+01:00" "Show prices with two decimals"
printf 'SHIPPING_CENTS = 490\n' > shipping.py
git add shipping.py
commit "2026-03-18T14:00:00+01:00" "Add a flat shipping fee of 4.90"
# staged, not committed: a fix of the VAT rate
printf 'VAT_RATE = 0.21\n' > tax.py
git add tax.py
# changed, not staged: the README's new line
printf '# Shop\n\nA small web shop.\n\nOpening hours: Monday to Friday, 9 to 17.\n' > README.md
