"""The embedded demo dataset: a few dozen passages and queries, written out in BEIR format.

Hand-written for this project (not taken from any benchmark). Several queries are 'hard'
in the ways the real benchmarks probe: multiple conditions, and negation.
"""

PASSAGES = {
    "d01": (
        "Mars",
        "Mars is the fourth planet from the Sun. Its red colour comes from iron oxide dust, and it has two "
        "small moons, Phobos and Deimos.",
    ),
    "d02": (
        "Venus",
        "Venus is the second planet from the Sun. A thick carbon dioxide atmosphere traps heat, making it the "
        "hottest planet in the Solar System.",
    ),
    "d03": (
        "Jupiter",
        "Jupiter is the largest planet in the Solar System, a gas giant with a Great Red Spot storm and dozens "
        "of moons including Ganymede.",
    ),
    "d04": (
        "Saturn",
        "Saturn is a gas giant famous for its bright rings of ice and rock. Its largest moon, Titan, has a "
        "dense nitrogen atmosphere.",
    ),
    "d05": (
        "Mercury",
        "Mercury is the smallest planet and the closest to the Sun. It has no moons and almost no atmosphere.",
    ),
    "d06": (
        "Neptune",
        "Neptune is the farthest known planet from the Sun, an ice giant with supersonic winds. Its largest "
        "moon is Triton.",
    ),
    "d07": (
        "Sourdough bread",
        "Sourdough bread is leavened by a starter of wild yeast and lactic acid bacteria instead of commercial "
        "yeast, which gives it a tangy flavour.",
    ),
    "d08": (
        "Brioche",
        "Brioche is a French bread enriched with butter and eggs and raised with commercial yeast, giving a "
        "soft, rich crumb.",
    ),
    "d09": (
        "Flatbread",
        "Many flatbreads, such as tortillas and matzo, are unleavened: they are made without any yeast or starter.",
    ),
    "d10": (
        "Rye bread",
        "Rye bread is made with rye flour and is often leavened with a sourdough starter; it is dense and dark.",
    ),
    "d11": (
        "Espresso",
        "Espresso is coffee brewed by forcing hot water under pressure through finely ground beans, producing "
        "a concentrated shot with crema.",
    ),
    "d12": (
        "Green tea",
        "Green tea is made from unoxidised leaves of Camellia sinensis and contains caffeine and antioxidants "
        "called catechins.",
    ),
    "d13": (
        "Herbal tea",
        "Herbal teas such as chamomile and peppermint are infusions of plants other than the tea plant and are "
        "naturally caffeine-free.",
    ),
    "d14": (
        "Decaffeinated coffee",
        "Decaffeinated coffee has most of its caffeine removed, often with water or carbon dioxide, before the "
        "beans are roasted.",
    ),
    "d15": (
        "Penicillin",
        "Penicillin, discovered by Alexander Fleming in 1928, was the first widely used antibiotic and kills "
        "bacteria by breaking their cell walls.",
    ),
    "d16": (
        "Insulin",
        "Insulin was first isolated in 1921 by Frederick Banting and Charles Best; it is a hormone that lowers "
        "blood sugar.",
    ),
    "d17": ("Vaccines", "Edward Jenner developed the first vaccine in 1796, using cowpox to protect against smallpox."),
    "d18": (
        "Aspirin",
        "Aspirin, acetylsalicylic acid, was first synthesised for medical use by Bayer in 1897 and relieves "
        "pain, fever and inflammation.",
    ),
    "d19": (
        "Great Wall of China",
        "The Great Wall of China is a series of fortifications built over centuries to protect Chinese states "
        "against raids from the northern steppe.",
    ),
    "d20": (
        "Hadrian's Wall",
        "Hadrian's Wall is a Roman defensive wall in northern England, begun in AD 122 under the emperor Hadrian.",
    ),
    "d21": (
        "Berlin Wall",
        "The Berlin Wall divided East and West Berlin from 1961 until it fell in 1989, a symbol of the Cold War.",
    ),
    "d22": (
        "Colosseum",
        "The Colosseum in Rome is an oval amphitheatre completed in AD 80 that hosted gladiator contests for "
        "tens of thousands of spectators.",
    ),
    "d23": (
        "Python (programming language)",
        "Python is a high-level programming language created by Guido van Rossum, known for readable syntax "
        "and a large standard library.",
    ),
    "d24": (
        "Rust (programming language)",
        "Rust is a systems programming language focused on memory safety without garbage collection, enforced "
        "by its borrow checker.",
    ),
    "d25": (
        "Java (programming language)",
        "Java is a programming language that runs on the Java Virtual Machine and manages memory with a "
        "garbage collector.",
    ),
    "d26": (
        "C (programming language)",
        "C is a low-level programming language created at Bell Labs; programmers manage memory by hand with "
        "malloc and free.",
    ),
    "d27": (
        "Honey bee",
        "Honey bees live in colonies with a single queen, communicate the location of flowers with a waggle "
        "dance, and make honey from nectar.",
    ),
    "d28": (
        "Bumblebee",
        "Bumblebees are large, fuzzy bees that live in small annual colonies and can buzz-pollinate tomatoes; "
        "they make very little honey.",
    ),
    "d29": (
        "Monarch butterfly",
        "The monarch butterfly migrates thousands of kilometres between Canada and Mexico; its caterpillars "
        "feed only on milkweed.",
    ),
    "d30": (
        "Emperor penguin",
        "Emperor penguins breed during the Antarctic winter; the male incubates the single egg on his feet for "
        "about two months.",
    ),
    "d31": (
        "Arctic tern",
        "The Arctic tern has the longest migration of any animal, flying from the Arctic to the Antarctic and "
        "back each year.",
    ),
    "d32": (
        "Kiwi (bird)",
        "The kiwi is a flightless bird of New Zealand that lays an egg very large relative to its body size.",
    ),
}

QUERIES = {
    "q01": "Which planet has a moon called Titan?",
    "q02": "hottest planet in the solar system because of its atmosphere",
    "q03": "planet with no moons closest to the sun",
    "q04": "bread leavened with wild yeast starter but not made with rye",
    "q05": "bread made without yeast",
    "q06": "hot drink that contains no caffeine",
    "q07": "who discovered the first antibiotic",
    "q08": "Roman wall in England",
    "q09": "programming language with memory safety and no garbage collector",
    "q10": "bee that makes honey and communicates by dancing",
    "q11": "bird that migrates between the poles",
    "q12": "flightless bird with a huge egg, not a penguin",
}

# Graded relevance: 2 = answers the query, 1 = partly relevant.
QRELS = {
    "q01": {"d04": 2},
    "q02": {"d02": 2},
    "q03": {"d05": 2},
    "q04": {"d07": 2, "d10": 0},
    "q05": {"d09": 2},
    "q06": {"d13": 2, "d14": 1},
    "q07": {"d15": 2},
    "q08": {"d20": 2, "d22": 0},
    "q09": {"d24": 2},
    "q10": {"d27": 2, "d28": 1},
    "q11": {"d31": 2},
    "q12": {"d32": 2, "d30": 0},
}
