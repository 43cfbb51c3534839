"""What a capitalised word names when it is no one, for the person finder
(``classify/entities.py``): a street ("14 Jackson Road"), a city's sights ("Lincoln's old
pubs"), a brand before what it makes ("a Ted Baker gift card"), a pet ("Max the labrador"),
and the words of languages mixed with English that are no names (Vietnamese function words,
Nigerian Pidgin, Japanese in romaji)."""

from __future__ import annotations

from collections.abc import Sequence

from vaultbrain.classify.mentions import capitalised
from vaultbrain.classify.namewords import DETERMINERS, PERSON_NOUNS, given_name, surname

# A capitalised word before one of these is a street, not a person ("Jackson Road", "Chelsea
# Rd", "Florence Ave"), and so is the name before it ("14 Jackson Road"); "Dr" and "St" are
# left out, as titles ("Frau Dr. Weiß", "St John")
STREET_WORDS = frozenset(
    """
    road rd street avenue ave av lane ln close cl drive way crescent cres terrace tce
    place pl court ct square sq grove gardens gdns boulevard blvd parade pde row mews wharf
    highway hwy esplanade quay
    """.split()
)
# Nouns of a town's sights: a possessive before one ("Lincoln's old pubs", "Sydney's
# beaches") is the town's; a person's would be "Sam's pub", not a town's many
PLACE_NOUNS = frozenset(
    """
    pubs bars cafes cafés restaurants streets beaches harbour harbor museums markets
    galleries parks suburbs skyline waterfront cathedral churches docks canals bridges
    nightlife hotels shops laneways
    """.split()
)
# What a brand makes or sells: a capitalised name before one is the brand ("a Ted Baker gift
# card", "the DELL laptop", "a Ford transit"), not someone
PRODUCT_NOUNS = frozenset(
    """
    gift voucher vouchers laptop laptops phone phones fridge store stores shop shops outlet
    outlets van vans car cars jacket jeans trainers shoes bag bags wallet wallets
    """.split()
)
# Animals: a name before "the" and one is a pet ("Max the labrador", "Biscuit the cat")
ANIMALS = frozenset(
    """
    dog cat puppy kitten pup labrador lab retriever spaniel terrier collie poodle beagle husky
    pug dachshund greyhound whippet sheepdog shepherd alsatian rottweiler boxer corgi
    schnauzer bulldog staffie staffy cockapoo cavapoo labradoodle rabbit bunny hamster
    guinea pig parrot budgie tortoise horse pony goat ferret cockatiel lizard snake
    """.split()
)
# Vietnamese function words, verbs and nouns of everyday lines: in a line with two different
# ones, none is a name ("gọi cho chị Hoa": call older sister Hoa)
VIETNAMESE = frozenset(
    """
    gọi cho và của là không có đi với ở tại mới mở đã sẽ đang rất nhé nha ạ mua ăn về hôm
    nay quán nhà được này đó thì mà nhưng cũng lắm quá rồi chưa phở cà phê bánh chợ
    """.split()
)
# Vietnamese kinship words, which open a name as a title does ("chị Hoa", "anh Minh"): the
# name is the title and the given name together; "anh" and "em" only in a Vietnamese line
VIET_KIN = frozenset("chị anh em cô chú bác ông bà".split())
# A capitalised word after one of these, in a Vietnamese line, is a place ("ở Hà Nội")
VIET_LOCATIVES = frozenset({"ở", "tại"})
# Common words of Nigerian Pidgin and of Japanese written in romaji, in English lines:
# everyday words, no one's name ("wahala everywhere today", "nomikai on kinyoubi")
LOANWORDS = frozenset(
    """
    wahala abeg abi sha sef jare wetin dey oya chop pikin wahalla gbege yawa jollof
    nomikai hikkoshi izakaya kinyoubi getsuyoubi kayoubi suiyoubi mokuyoubi doyoubi
    nichiyoubi bento onsen konbini ramen sushi omiyage arigatou sumimasen gambatte
    """.split()
)


def street(toks: Sequence[str], k: int) -> bool:
    """Token ``k`` is the name of a street: the capitalised word after it is a street word
    ("Jackson Road", "Chelsea Rd"), or the word before it is a house number ("14 Jackson")."""
    if k + 1 >= len(toks) or not capitalised(toks[k + 1]):
        return False
    return toks[k + 1].lower().rstrip(".") in STREET_WORDS


def sights(toks: Sequence[str], k: int) -> bool:
    """A possessive token ``k`` before a town's sights, an adjective between ("Lincoln's old
    pubs", "Sydney's beaches"): a town."""
    return any(toks[j].lower() in PLACE_NOUNS for j in range(k + 1, min(k + 3, len(toks))))


def brand(toks: Sequence[str], k: int) -> bool:
    """The name ending at token ``k - 1`` stands before what a brand makes ("a Ted Baker
    gift card", "the DELL laptop"): the brand, not someone."""
    return k < len(toks) and toks[k].lower() in PRODUCT_NOUNS


def pet(toks: Sequence[str], k: int) -> bool:
    """ "Max the labrador", "Biscuit the cat": a name, then "the" and an animal."""
    return k + 2 < len(toks) and toks[k + 1].lower() == "the" and toks[k + 2].lower() in ANIMALS


def vietnamese(words: set[str]) -> bool:
    """A line of Vietnamese: two different of its everyday words among lowercase ``words``."""
    return len(words & VIETNAMESE) >= 2


def viet_title(low: str, viet: bool) -> bool:
    """``low`` is a Vietnamese kinship word that opens a name: a diacritic says so ("chị",
    "cô"); "anh" and "em" are English or given names outside a Vietnamese line."""
    return low in VIET_KIN and (viet or not low.isascii())


# Errands that end at a shop: after one, a capitalised word after "at", "from" or "into" that
# is no given name is the shop ("grab a slab from Coles", "pop into Bunnings")
ERRAND_VERBS = frozenset("grab grabbing pick pop nip price pricing collect".split())


def owned(toks: Sequence[str], k: int) -> bool:
    """Token ``k`` is a noun after an article or a possessive ("a husky", "our new cat")
    that names no one: a name "called" after it is the pet's or the thing's. A noun of
    a person ("a guy", "a friend") or of someone who does something ("a plumber", "a
    dentist", "an electrician") names someone."""
    noun = toks[k].lower()
    if noun in PERSON_NOUNS or noun.endswith(("er", "or", "ist", "ian", "ant", "ent")):
        return False
    return any(toks[j].lower() in DETERMINERS for j in range(max(0, k - 2), k))


def no_one(toks: Sequence[str], start: int, end: int) -> bool:
    """The name ``toks[start:end]`` is no one: a street ("Jackson Road", "14 Jackson"), a
    brand before what it makes ("a Ted Baker gift card"), a chain named after its founder
    ("Tim Hortons"), a pet ("Max the labrador"), or a town before its sights ("Lincoln's old
    pubs")."""
    last = toks[end - 1]
    if any(capitalised(t) and t.lower().rstrip(".") in STREET_WORDS for t in toks[start + 1 : end]):
        return True
    if street(toks, end - 1) or brand(toks, end) or pet(toks, end - 1) or chain(toks[start:end]):
        return True
    return last.lower().endswith(("'s", "’s")) and sights(toks, end - 1)


def chain(words: Sequence[str]) -> bool:
    """A full name whose last word is a surname with an "s" added that is no surname itself
    ("Tim Hortons"): a chain its founder named, as "Sainsbury's" is written "Sainsburys"."""
    if len(words) < 2 or not words[-1].endswith("s"):
        return False
    low = words[-1].lower()
    return not (surname(low) or given_name(low)) and surname(low[:-1])
