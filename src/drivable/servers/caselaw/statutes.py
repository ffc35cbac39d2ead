"""The statutes decisions cite, by ELI: Czech acts in the Sbírka zákonů and EU acts in the Official
Journal, as `drivable.kinds.eli` emits them, with the acts a decision of each subject applies."""

from __future__ import annotations

from drivable.kinds.eli import CZ_BASE, EU_BASE


def cz(year: int, number: int) -> str:
    return f"{CZ_BASE}/{year}/{number}"


def eu(kind: str, year: int, number: int) -> str:
    return f"{EU_BASE}/{kind}/{year}/{number}/oj"


STATUTES: dict[str, str] = {
    cz(2012, 89): "zákon č. 89/2012 Sb., občanský zákoník",
    cz(1963, 99): "zákon č. 99/1963 Sb., občanský soudní řád",
    cz(2009, 40): "zákon č. 40/2009 Sb., trestní zákoník",
    cz(1961, 141): "zákon č. 141/1961 Sb., trestní řád",
    cz(2006, 262): "zákon č. 262/2006 Sb., zákoník práce",
    cz(2012, 90): "zákon č. 90/2012 Sb., o obchodních korporacích",
    cz(2006, 182): "zákon č. 182/2006 Sb., insolvenční zákon",
    cz(2002, 150): "zákon č. 150/2002 Sb., soudní řád správní",
    cz(2004, 500): "zákon č. 500/2004 Sb., správní řád",
    cz(2009, 280): "zákon č. 280/2009 Sb., daňový řád",
    cz(2004, 235): "zákon č. 235/2004 Sb., o dani z přidané hodnoty",
    cz(1999, 325): "zákon č. 325/1999 Sb., o azylu",
    cz(1993, 1): "ústavní zákon č. 1/1993 Sb., Ústava České republiky",
    cz(1993, 2): "usnesení č. 2/1993 Sb., Listina základních práv a svobod",
    cz(2019, 110): "zákon č. 110/2019 Sb., o zpracování osobních údajů",
    cz(1992, 634): "zákon č. 634/1992 Sb., o ochraně spotřebitele",
    cz(2001, 143): "zákon č. 143/2001 Sb., o ochraně hospodářské soutěže",
    eu("reg", 2016, 679): "Regulation (EU) 2016/679 (General Data Protection Regulation)",
    eu("dir", 1993, 13): "Council Directive 93/13/EEC on unfair terms in consumer contracts",
    eu("reg", 2012, 1215): "Regulation (EU) No 1215/2012 (Brussels I bis)",
    eu("dir", 2011, 83): "Directive 2011/83/EU on consumer rights",
    eu("reg", 2004, 261): "Regulation (EC) No 261/2004 on air passenger rights",
    eu("dir", 2006, 112): "Council Directive 2006/112/EC on the common system of VAT",
    eu("dir", 2013, 32): "Directive 2013/32/EU on international protection procedures",
    eu("reg", 2015, 848): "Regulation (EU) 2015/848 on insolvency proceedings",
    eu("reg", 2003, 1): "Council Regulation (EC) No 1/2003 (competition rules)",
    eu("dir", 2003, 88): "Directive 2003/88/EC concerning the organisation of working time",
    eu("reg", 2019, 1111): "Council Regulation (EU) 2019/1111 (Brussels II ter)",
}

# Statutes a decision of each subject applies: Czech acts (for Czech courts) and EU acts (for all).
CZ_BY_SUBJECT: dict[str, tuple[str, ...]] = {
    "civil": (cz(2012, 89), cz(1963, 99)),
    "commercial": (cz(2012, 90), cz(2012, 89)),
    "labour": (cz(2006, 262),),
    "family": (cz(2012, 89),),
    "consumer": (cz(1992, 634), cz(2012, 89)),
    "insolvency": (cz(2006, 182),),
    "criminal": (cz(2009, 40), cz(1961, 141)),
    "administrative": (cz(2002, 150), cz(2004, 500)),
    "tax": (cz(2009, 280), cz(2004, 235)),
    "asylum": (cz(1999, 325), cz(2002, 150)),
    "constitutional": (cz(1993, 1), cz(1993, 2)),
    "data_protection": (cz(2019, 110),),
    "human_rights": (cz(1993, 2),),
    "competition": (cz(2001, 143),),
}
EU_BY_SUBJECT: dict[str, tuple[str, ...]] = {
    "civil": (eu("reg", 2012, 1215),),
    "commercial": (eu("reg", 2012, 1215),),
    "labour": (eu("dir", 2003, 88),),
    "family": (eu("reg", 2019, 1111),),
    "consumer": (eu("dir", 1993, 13), eu("dir", 2011, 83), eu("reg", 2004, 261)),
    "insolvency": (eu("reg", 2015, 848),),
    "criminal": (),
    "administrative": (),
    "tax": (eu("dir", 2006, 112),),
    "asylum": (eu("dir", 2013, 32),),
    "constitutional": (),
    "data_protection": (eu("reg", 2016, 679),),
    "human_rights": (),
    "competition": (eu("reg", 2003, 1),),
}
